import { useState } from 'react';
import { call, download, saveBlob } from '../api';
import { href, useApiQuery, useCursorPages, useEnv } from '../hooks';
import { Checks, FilterForm, PagedTable, QueryView, useFilters } from '../lists';
import type { Settlement } from '../types';
import { Badge, DateOnly, DateTime, Details, money, Outcome, PageTitle } from '../ui';

const STATUSES = ['DRAFT', 'ISSUED', 'PAID'] as const;
type Status = (typeof STATUSES)[number];

const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
export const periodLabel = (s: Pick<Settlement, 'period_start'>) => monthFormat.format(new Date(`${s.period_start}T00:00:00Z`));

export default function Settlements({ route }: { route: string[] }) {
  return route[0] ? <SettlementDetail id={route[0]} /> : <SettlementList />;
}

function SettlementList() {
  const f = useFilters<{ status: Status[]; periodFrom: string; periodTo: string }>({ status: [], periodFrom: '', periodTo: '' });
  const { filters, draft } = f;
  const pages = useCursorPages(filters);
  const q = useApiQuery(['settlements', 'list', filters, pages.cursor], (env, signal) =>
    call(env, 'listSettlements', {
      signal,
      query: { limit: 25, cursor: pages.cursor, status: filters.status, period_from: filters.periodFrom, period_to: filters.periodTo },
    }),
  );
  return (
    <>
      <PageTitle>Settlements</PageTitle>
      <p>The monthly invoices from Partner Travel to your bank, with their PDF invoice and CSV statement.</p>
      <FilterForm label="Filter the settlements" onApply={f.apply} onClear={f.clear}>
        <Checks legend="Status" options={STATUSES} value={draft.status} onChange={(status) => f.set({ status })} />
        <label>
          From month
          <input type="month" value={draft.periodFrom} onChange={(e) => f.set({ periodFrom: e.target.value })} />
        </label>
        <label>
          To month
          <input type="month" value={draft.periodTo} onChange={(e) => f.set({ periodTo: e.target.value })} />
        </label>
      </FilterForm>
      <PagedTable
        query={q}
        pages={pages}
        loading="Loading settlements…"
        empty="No settlements match. One is issued each month for the bookings of the month before."
        pagerLabel="Pages of settlements"
        caption="Settlements, most recent first"
        rowKey={(s) => s.id}
        columns={[
          { header: 'Invoice', cell: (s) => <a href={href('settlements', s.id)}>{s.number ?? `Draft ${periodLabel(s)}`}</a> },
          { header: 'Month', cell: (s) => periodLabel(s) },
          { header: 'Status', cell: (s) => <Badge value={s.status} /> },
          { header: 'Total due', numeric: true, cell: (s) => money(s.total_due) },
          { header: 'Bookings', numeric: true, cell: (s) => s.booking_count },
          { header: 'Issued', cell: (s) => <DateOnly value={s.issue_date} /> },
          { header: 'Due', cell: (s) => <DateOnly value={s.due_date} /> },
          { header: 'Paid', cell: (s) => <DateTime value={s.paid_at} /> },
        ]}
      />
    </>
  );
}

function SettlementDetail({ id }: { id: string }) {
  const q = useApiQuery(['settlements', 'one', id], (env, signal) => call(env, 'getSettlement', { path: { id }, signal }));
  const s = q.data;
  return (
    <>
      <p>
        <a href={href('settlements')}>← All settlements</a>
      </p>
      <PageTitle>{s ? `Settlement ${s.number ?? `(draft) ${periodLabel(s)}`}` : 'Settlement'}</PageTitle>
      <QueryView query={q} loading="Loading the settlement…">
        {(s) => (
          <>
            <Details
              items={[
                ['Status', <Badge key="s" value={s.status} />],
                ['Month', `${periodLabel(s)} (${s.period_start} to ${s.period_end})`],
                ['Total due', money(s.total_due)],
                ['Bookings', String(s.booking_count)],
                ['Lines', String(s.line_count)],
                ['Issued', <DateOnly key="i" value={s.issue_date} />],
                ['Due', <DateOnly key="d" value={s.due_date} />],
                ['Paid', <DateTime key="p" value={s.paid_at} />],
                ['Transfer reference', s.transfer_reference ?? '—'],
              ]}
            />
            <section aria-labelledby="st-docs">
              <h2 id="st-docs">Documents</h2>
              {s.status === 'DRAFT' ? (
                <p>The invoice and the statement are issued with the settlement, at the start of the next month.</p>
              ) : (
                <div className="actions">
                  <DownloadButton path={`/settlements/${id}/invoice.pdf`} fallbackName={`invoice-${s.number ?? id}.pdf`} label="Download the invoice (PDF)" />
                  <DownloadButton
                    path={`/settlements/${id}/statement.csv`}
                    fallbackName={`statement-${s.number ?? id}.csv`}
                    label="Download the statement (CSV)"
                  />
                </div>
              )}
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}

/** Fetches a document with the session's token, then saves it under the server's file name. */
function DownloadButton({ path, fallbackName, label }: { path: string; fallbackName: string; label: string }) {
  const env = useEnv();
  const [state, setState] = useState<{ busy: boolean; error: unknown; saved: string | null }>({ busy: false, error: null, saved: null });
  const run = async () => {
    setState({ busy: true, error: null, saved: null });
    try {
      const { blob, filename } = await download(env, path, fallbackName);
      saveBlob(blob, filename);
      setState({ busy: false, error: null, saved: filename });
    } catch (e) {
      setState({ busy: false, error: e, saved: null });
    }
  };
  return (
    <div className="download">
      <button type="button" onClick={() => void run()} disabled={state.busy}>
        {label}
      </button>
      <Outcome pending={state.busy} pendingLabel="Downloading…" error={state.error} success={state.saved ? `Saved ${state.saved}.` : null} />
    </div>
  );
}
