import { type UseQueryResult, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type InputHTMLAttributes, type ReactNode, useState } from 'react';
import type { useCursorPages } from './hooks';
import type { PageMeta } from './types';
import { ErrorNote, Pager, Spinner } from './ui';

export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  numeric?: boolean;
  /** The cell that names the row (a th scope=row). */
  rowHeader?: boolean;
}

export interface TableProps<T> {
  columns: (Column<T> | false | null)[];
  rows: T[];
  rowKey: (row: T) => string;
  caption?: string;
  /** Show the caption (else it is for screen readers only). */
  showCaption?: boolean;
}

export function DataTable<T>({ columns, rows, rowKey, caption, showCaption }: TableProps<T>) {
  const cols = columns.filter((c): c is Column<T> => !!c);
  return (
    <div className="table-wrap">
      <table>
        {caption ? <caption className={showCaption ? undefined : 'visually-hidden'}>{caption}</caption> : null}
        <thead>
          <tr>
            {cols.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
              <th key={i} scope="col" className={c.numeric ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)}>
              {cols.map((c, i) =>
                c.rowHeader ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
                  <th key={i} scope="row">
                    {c.cell(r)}
                  </th>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
                  <td key={i} className={c.numeric ? 'num' : undefined}>
                    {c.cell(r)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A query's three states: a spinner with words, the API's refusal, or the answer. */
export function QueryView<T>({ query, loading, children }: { query: UseQueryResult<T, Error>; loading: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return query.fetchStatus === 'idle' ? null : <Spinner label={loading} />;
  if (query.isError) return <ErrorNote error={query.error} />;
  return <>{children(query.data)}</>;
}

/** A query's list as a table, or what an empty one means. */
export function QueryTable<T>({
  query,
  loading,
  empty,
  ...table
}: { query: UseQueryResult<{ data: T[] }, Error>; loading: string; empty: ReactNode } & Omit<TableProps<T>, 'rows'>) {
  return (
    <QueryView query={query} loading={loading}>
      {(page) => (page.data.length === 0 ? <p>{empty}</p> : <DataTable {...table} rows={page.data} />)}
    </QueryView>
  );
}

/** A cursor-paged list as a table, with Previous and Next. */
export function PagedTable<T>({
  query,
  pages,
  loading,
  empty,
  pagerLabel,
  ...table
}: {
  query: UseQueryResult<{ data: T[]; meta: PageMeta }, Error>;
  pages: ReturnType<typeof useCursorPages>;
  loading: string;
  empty: ReactNode;
  pagerLabel: string;
} & Omit<TableProps<T>, 'rows'>) {
  return (
    <QueryView query={query} loading={loading}>
      {(page) => (
        <>
          {page.data.length === 0 ? <p>{empty}</p> : <DataTable {...table} rows={page.data} />}
          <Pager label={pagerLabel} page={pages.page} nextCursor={page.meta.next_cursor} onNext={pages.next} onPrevious={pages.previous} />
        </>
      )}
    </QueryView>
  );
}

/**
 * Filters typed into a draft and applied on submit (so a list is not fetched at each keystroke). Applying the
 * filters already shown looks anew: the same query key would otherwise answer from the cache for its stale time,
 * and a request log or an index that lags is exactly what a reader applies again for.
 */
export function useFilters<F>(initial: F) {
  const client = useQueryClient();
  const [filters, setFilters] = useState<F>(initial);
  const [draft, setDraft] = useState<F>(initial);
  return {
    filters,
    draft,
    set: (patch: Partial<F>) => setDraft((d) => ({ ...d, ...patch })),
    apply: () => {
      if (JSON.stringify(draft) === JSON.stringify(filters)) void client.invalidateQueries({ refetchType: 'active' }, { cancelRefetch: false });
      else setFilters(draft);
    },
    clear: () => {
      setDraft(initial);
      setFilters(initial);
    },
  };
}

export function FilterForm({ label, onApply, onClear, children }: { label: string; onApply: () => void; onClear?: () => void; children: ReactNode }) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply();
  };
  return (
    <form className="filters" onSubmit={submit} aria-label={label}>
      {children}
      <div className="actions">
        <button type="submit">Apply filters</button>
        {onClear ? (
          <button type="button" className="secondary" onClick={onClear}>
            Clear
          </button>
        ) : null}
      </div>
    </form>
  );
}

/** One field and a button that finds a thing by what the reader typed (an id, a number), trimmed. */
export function FindForm({
  label,
  field,
  button,
  onFind,
  ...input
}: { label?: string; field: string; button: string; onFind: (value: string) => void } & Pick<
  InputHTMLAttributes<HTMLInputElement>,
  'pattern' | 'placeholder'
>) {
  const [draft, setDraft] = useState('');
  return (
    <form
      className="row"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onFind(draft.trim());
      }}
    >
      <label>
        {field}
        <input type="text" required {...input} value={draft} onChange={(e) => setDraft(e.target.value)} />
      </label>
      <button type="submit">{button}</button>
    </form>
  );
}

/** A set of checkboxes (statuses, event types). */
export function Checks<V extends string>({
  legend,
  options,
  value,
  onChange,
  labelOf = (v) => v.charAt(0) + v.slice(1).toLowerCase(),
  className,
}: {
  legend: string;
  options: readonly V[];
  value: V[];
  onChange: (v: V[]) => void;
  labelOf?: (v: V) => ReactNode;
  className?: string;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o} className="inline">
          <input type="checkbox" checked={value.includes(o)} onChange={(e) => onChange(e.target.checked ? [...value, o] : value.filter((x) => x !== o))} />
          {labelOf(o)}
        </label>
      ))}
    </fieldset>
  );
}
