import { type ReactNode, useState } from 'react';
import { call, download, saveBlob } from '../api';
import { href, useApiQuery, useCursorPages, useEnv } from '../hooks';
import { Checks, FilterForm, PagedTable, QueryView, useFilters } from '../lists';
import type { Settlement, SettlementLine } from '../types';
import { Badge, BookingLink, CopyButton, DateOnly, DateTime, Details, money, Outcome, PageTitle } from '../ui';

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
        empty={
          filters.status.length || filters.periodFrom || filters.periodTo
            ? 'No settlements match these filters.'
            : 'No settlements in this environment yet: one is issued on the 1st of each month for the bookings confirmed in the month before.'
        }
        pagerLabel="Pages of settlements"
        caption="Settlements, most recent first"
        rowKey={(s) => s.id}
        columns={[
          {
            header: 'Invoice',
            cell: (s) => (
              <a href={href('settlements', s.id)} className={s.number ? 'token' : undefined}>
                {s.number ?? `Draft ${periodLabel(s)}`}
              </a>
            ),
          },
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
                [
                  'Total due',
                  <span key="t" className="token">
                    {money(s.total_due)}
                  </span>,
                ],
                ['Bookings', String(s.booking_count)],
                ['Lines', String(s.line_count)],
                ['Issued', <DateOnly key="i" value={s.issue_date} />],
                ['Due', <DateOnly key="d" value={s.due_date} />],
                ['Paid', <DateTime key="p" value={s.paid_at} />],
                ['Transfer reference', s.transfer_reference ?? '—'],
              ]}
            />
            <Payment settlement={s} />
            <Lines settlement={s} />
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

/** The invoice's payment block: whom to pay, where, how much, by when and the reference the transfer quotes. */
function Payment({ settlement: s }: { settlement: Settlement }) {
  const p = s.payment_instructions;
  return (
    <section aria-labelledby="st-pay">
      <h2 id="st-pay">Payment instructions</h2>
      {!p ? (
        <p>A draft is not due yet: it gets its payment instructions when it is issued.</p>
      ) : (
        <>
          {!p.transfer_expected ? (
            <p className="notice">
              {s.test_mode ? 'Test mode: make no transfer.' : 'Specimen invoice: make no transfer.'} The account to pay is left out, as on its PDF.
            </p>
          ) : null}
          <Details
            items={[
              [
                'Amount',
                <span key="a" className="token">
                  {money(p.amount)}
                </span>,
              ],
              ['Due by', <DateOnly key="d" value={p.due_date} />],
              ['Beneficiary', p.beneficiary],
              ['Bank', p.bank],
              // No transfer is due: no account to copy one to (the test invoice's PDF leaves it out too).
              ...(p.transfer_expected ? [['RIB', <CopyField key="r" text={p.rib} label="Copy the RIB" />] as [string, ReactNode]] : []),
              ['Reference to quote', <CopyField key="q" text={p.reference} label="Copy the reference" />],
            ]}
          />
          {s.status === 'PAID' ? <p>Paid: no transfer is due.</p> : null}
        </>
      )}
    </section>
  );
}

function CopyField({ text, label }: { text: string; label: string }) {
  return (
    <>
      <code>{text}</code> <CopyButton text={text} label={label} />
    </>
  );
}

/** The statement's rows, a page at a time, so finance reconciles without the CSV. */
function Lines({ settlement: s }: { settlement: Settlement }) {
  const pages = useCursorPages(s.id);
  const q = useApiQuery(['settlements', 'lines', s.id, pages.cursor], (env, signal) =>
    call(env, 'listSettlementLines', { path: { id: s.id }, query: { limit: 50, cursor: pages.cursor }, signal }),
  );
  return (
    <section aria-labelledby="st-lines">
      <h2 id="st-lines">Lines</h2>
      <p>
        {s.line_count} lines totalling {money(s.total_due)}
        {s.status === 'DRAFT' ? ' so far' : ''}: one per booking confirmed in the month, and an adjustment for each refund of a booking an earlier settlement
        invoiced.
      </p>
      <PagedTable<SettlementLine>
        query={q}
        pages={pages}
        loading="Loading the lines…"
        empty="No lines: no booking was confirmed in this month."
        pagerLabel="Pages of lines"
        caption={`Lines of the settlement, ${s.line_count} in all`}
        rowKey={(l) => `${l.kind}-${l.booking_number}`}
        columns={[
          {
            header: 'Booking',
            rowHeader: true,
            cell: (l) => <BookingLink number={l.booking_number} />,
          },
          { header: 'Your reference', cell: (l) => l.partner_reference },
          { header: 'Adventure', cell: (l) => l.adventure },
          { header: 'Travel date', cell: (l) => <DateOnly value={l.travel_date} /> },
          { header: 'Confirmed', cell: (l) => <DateTime value={l.confirmed_at} /> },
          {
            header: 'Status',
            cell: (l) => (
              <>
                <Badge value={l.status} />
                {l.adjusts ? ` of ${l.adjusts.number ?? l.adjusts.period}` : ''}
              </>
            ),
          },
          { header: 'Charged', numeric: true, cell: (l) => money(l.charged_amount) },
          { header: 'Refunded', numeric: true, cell: (l) => money(l.refund_amount) },
          { header: 'Amount', numeric: true, cell: (l) => money(l.amount) },
        ]}
      />
    </section>
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
