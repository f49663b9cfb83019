import { type ReactNode, useState } from 'react';
import { call } from '../api';
import { href, navigate, useApiQuery, useCursorPages, useWrite } from '../hooks';
import { Checks, DataTable, FilterForm, FindForm, PagedTable, QueryView, useFilters } from '../lists';
import { useCan } from '../me';
import type { Booking, BookingStatus } from '../types';
import { Badge, DateOnly, DateTime, Details, ErrorNote, money, Outcome, PageTitle, Spinner } from '../ui';

const STATUSES: BookingStatus[] = ['CONFIRMED', 'COMPLETED', 'CANCELLED'];

export default function Bookings({ route }: { route: string[] }) {
  return route[0] ? <BookingDetail bookingNumber={route[0]} /> : <BookingList />;
}

interface Filters {
  status: BookingStatus[];
  createdFrom: string;
  createdTo: string;
  customerReference: string;
  partnerReference: string;
}

function BookingList() {
  const f = useFilters<Filters>({ status: [], createdFrom: '', createdTo: '', customerReference: '', partnerReference: '' });
  const { filters, draft } = f;
  const pages = useCursorPages(filters);
  const q = useApiQuery(['bookings', 'list', filters, pages.cursor], (env, signal) =>
    call(env, 'listBookings', {
      signal,
      query: {
        limit: 25,
        cursor: pages.cursor,
        status: filters.status,
        // The day's bounds in UTC, as the API takes instants.
        created_from: filters.createdFrom ? `${filters.createdFrom}T00:00:00Z` : undefined,
        created_to: filters.createdTo ? `${filters.createdTo}T23:59:59Z` : undefined,
        customer_reference: filters.customerReference.trim() || undefined,
        partner_reference: filters.partnerReference.trim() || undefined,
      },
    }),
  );
  return (
    <>
      <PageTitle>Bookings</PageTitle>
      <FindBooking />
      <FilterForm label="Filter the bookings" onApply={f.apply} onClear={f.clear}>
        <Checks legend="Status" options={STATUSES} value={draft.status} onChange={(status) => f.set({ status })} />
        <label>
          Created from (UTC)
          <input type="date" value={draft.createdFrom} onChange={(e) => f.set({ createdFrom: e.target.value })} />
        </label>
        <label>
          Created to (UTC)
          <input type="date" value={draft.createdTo} onChange={(e) => f.set({ createdTo: e.target.value })} />
        </label>
        <label>
          Your reference
          <input type="text" maxLength={64} value={draft.partnerReference} onChange={(e) => f.set({ partnerReference: e.target.value })} />
        </label>
        <label>
          Customer reference
          <input type="text" value={draft.customerReference} onChange={(e) => f.set({ customerReference: e.target.value })} />
        </label>
      </FilterForm>
      <PagedTable
        query={q}
        pages={pages}
        loading="Loading bookings…"
        empty="No bookings match."
        pagerLabel="Pages of bookings"
        caption="Bookings, most recent first"
        rowKey={(b) => b.booking_number}
        columns={[
          { header: 'Booking', cell: (b) => <a href={href('bookings', b.booking_number)}>{b.booking_number}</a> },
          { header: 'Your reference', cell: (b) => b.partner_reference },
          { header: 'Adventure', cell: (b) => b.adventure_title },
          {
            header: 'Travel date',
            cell: (b) => (
              <>
                <DateOnly value={b.travel_date} />
                {b.start_time ? ` ${b.start_time}` : ''}
              </>
            ),
          },
          { header: 'Travelers', cell: (b) => b.travelers.map((t) => t.initials).join(', ') },
          { header: 'Amount', numeric: true, cell: (b) => money(b.net_amount) },
          { header: 'Status', cell: (b) => <Badge value={b.status} /> },
          { header: 'Created', cell: (b) => <DateTime value={b.created_at} /> },
        ]}
      />
    </>
  );
}

/** A booking number goes straight to its booking (GET /v1/bookings/{number}), as support quotes it. */
function FindBooking() {
  return (
    <FindForm
      label="Find a booking by its number"
      field="Booking number"
      button="Open"
      placeholder="PTB-7K3M-Q9XD"
      onFind={(number) => navigate('bookings', number.toUpperCase())}
    />
  );
}

function BookingDetail({ bookingNumber }: { bookingNumber: string }) {
  const can = useCan();
  const q = useApiQuery(['bookings', 'one', bookingNumber], (env, signal) => call(env, 'getBooking', { path: { booking_number: bookingNumber }, signal }));
  return (
    <>
      <p>
        <a href={href('bookings')}>← All bookings</a>
      </p>
      <PageTitle>Booking {bookingNumber}</PageTitle>
      <QueryView query={q} loading="Loading the booking…">
        {(b) => <BookingBody booking={b} canCancel={can('bookings:write')} />}
      </QueryView>
    </>
  );
}

function BookingBody({ booking: b, canCancel }: { booking: Booking; canCancel: boolean }) {
  return (
    <>
      <section aria-labelledby="bk-summary">
        <h2 id="bk-summary">Summary</h2>
        <Details
          items={[
            ['Status', <Badge key="s" value={b.status} />],
            ['Your reference', b.partner_reference],
            ['Adventure', `${b.adventure.title} (${b.adventure.slug})`],
            ['Rate pack', `${b.rate_pack.name} · ${b.rate_pack.booking_mode.toLowerCase()}`],
            ['Travel date', <span key="t">{b.travel_date + (b.start_time ? ` at ${b.start_time}` : '')}</span>],
            ['Net amount', money(b.net_amount)],
            ['Paid', `${money(b.payment.amount)} · ${b.payment.payment_reference}`],
            ['Quote', <code key="q">{b.quote_id}</code>],
            ['Created', <DateTime key="c" value={b.created_at} />],
            ['Completed', <DateTime key="d" value={b.completed_at} />],
          ]}
        />
      </section>
      <section aria-labelledby="bk-travelers">
        <h2 id="bk-travelers">Travelers</h2>
        <DataTable
          caption="Travelers, in the order of the quote"
          rows={b.travelers.map((t, i) => ({ ...t, n: String(i) }))}
          rowKey={(t) => t.n}
          columns={[
            { header: 'Name', rowHeader: true, cell: (t) => `${t.first_name} ${t.last_name}` },
            { header: 'Age', cell: (t) => t.age },
            { header: 'Bracket', cell: (t) => t.age_bracket.label },
            { header: 'Price', numeric: true, cell: (t) => money(t.price) },
          ]}
        />
        <h3>Contact</h3>
        <p>
          {b.contact.first_name} {b.contact.last_name} · {b.contact.email} · {b.contact.phone}
        </p>
      </section>
      <section aria-labelledby="bk-policy">
        <h2 id="bk-policy">Cancellation</h2>
        <p>{b.cancellation_policy.description}</p>
        {b.cancellation ? (
          <Details
            items={[
              ['Cancelled', <DateTime key="a" value={b.cancellation.cancelled_at} />],
              ['By', b.cancellation.cancelled_by === 'PARTNER' ? 'You' : 'The service'],
              ['Reason', b.cancellation.reason ?? '—'],
              ['Refund', `${money(b.cancellation.refund_amount)} (${b.cancellation.refund_percent}%)`],
              ['Fee', money(b.cancellation.fee_amount)],
            ]}
          />
        ) : null}
        {canCancel ? <CancelFlow bookingNumber={b.booking_number} confirmed={b.status === 'CONFIRMED'} /> : null}
      </section>
    </>
  );
}

/** Cancelling shows the cancellation quote first (refund, fee, until when it holds), then asks. */
function CancelFlow({ bookingNumber, confirmed }: { bookingNumber: string; confirmed: boolean }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const quote = useApiQuery(
    ['bookings', 'cancellation-quote', bookingNumber],
    (env, signal) => call(env, 'getCancellationQuote', { path: { booking_number: bookingNumber }, signal }),
    { enabled: open, staleTime: 0 },
  );
  const cancel = useWrite((body: { reason?: string }, { env, idempotencyKey }) =>
    call(env, 'cancelBooking', { path: { booking_number: bookingNumber }, body, idempotencyKey }),
  );
  if (cancel.isSuccess)
    return (
      <p className="success" role="status">
        Booking {bookingNumber} is cancelled; {money(cancel.data.cancellation?.refund_amount)} will be refunded.
      </p>
    );
  if (!confirmed) return null;
  if (!open)
    return (
      <button type="button" className="danger-outline" onClick={() => setOpen(true)}>
        Cancel this booking…
      </button>
    );
  const cq = quote.data;
  return (
    <section className="panel" aria-labelledby="cq-title">
      <h3 id="cq-title">Cancellation quote</h3>
      {quote.isPending ? <Spinner label="Asking what cancelling now would refund…" /> : null}
      {quote.isError ? <ErrorNote error={quote.error} /> : null}
      {cq ? (
        <>
          <Details
            items={[
              ['Paid', money(cq.amount_paid)],
              // A booking that cannot be cancelled has no refund figures (the quote gives them as null).
              ...(cq.cancellable
                ? ([
                    ['Refund if cancelled now', `${money(cq.refundable_amount)} (${cq.refund_percent}%)`],
                    ['Fee', money(cq.fee_amount)],
                    [
                      'Rule applied',
                      cq.applied_rule
                        ? `${cq.applied_rule.refund_percent}% refund when cancelled ${cq.applied_rule.hours_before} h or more before the start`
                        : 'No refund rule applies',
                    ],
                    ['Holds until', cq.valid_until ? <DateTime key="v" value={cq.valid_until} /> : 'the start of the adventure'],
                  ] satisfies [string, ReactNode][])
                : []),
            ]}
          />
          {cq.cancellable ? (
            <form
              className="stack"
              onSubmit={(e) => {
                e.preventDefault();
                cancel.mutate(reason.trim() ? { reason: reason.trim() } : {});
              }}
            >
              <label>
                Reason (optional)
                <input type="text" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
              </label>
              <div className="actions">
                <button type="submit" className="danger" disabled={cancel.isPending}>
                  Confirm the cancellation
                </button>
                <button type="button" className="secondary" onClick={() => setOpen(false)}>
                  Keep the booking
                </button>
              </div>
            </form>
          ) : (
            <p>This booking can no longer be cancelled (its adventure has started, or it is not confirmed).</p>
          )}
        </>
      ) : null}
      <Outcome pending={cancel.isPending} pendingLabel="Cancelling the booking…" error={cancel.error} />
    </section>
  );
}
