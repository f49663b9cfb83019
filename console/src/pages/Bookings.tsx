import { type ReactNode, useState } from 'react';
import { call } from '../api';
import { href, navigate, useApiQuery, useCursorPages, useEnv, useWrite } from '../hooks';
import { Checks, DataTable, FilterForm, FindForm, PagedTable, QueryTable, QueryView, useFilters } from '../lists';
import { useCan } from '../me';
import type { Booking, BookingStatus, WebhookDelivery } from '../types';
import { Badge, BookingLink, DateOnly, DateTime, Details, ErrorNote, money, Outcome, PageTitle, Spinner, shortId } from '../ui';
import { periodLabel } from './Settlements';

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
  const env = useEnv();
  const filtered = Boolean(
    filters.status.length || filters.createdFrom || filters.createdTo || filters.customerReference.trim() || filters.partnerReference.trim(),
  );
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
        empty={
          filtered
            ? 'No bookings match these filters.'
            : env === 'live'
              ? 'No bookings in live yet: the bookings your systems make with a live key (sk_live_) appear here.'
              : 'No bookings in the sandbox yet: the bookings your systems make with a sandbox key (sk_test_) appear here.'
        }
        pagerLabel="Pages of bookings"
        caption="Bookings, most recent first"
        rowKey={(b) => b.booking_number}
        columns={[
          {
            header: 'Booking',
            cell: (b) => <BookingLink number={b.booking_number} />,
          },
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
            [
              'Net amount',
              <span key="n" className="token">
                {money(b.net_amount)}
              </span>,
            ],
            ['Settlement', <BookingSettlement key="st" booking={b} />],
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
      <BookingEvents booking={b} />
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

/** The settlement that bills the booking (the month it was confirmed in), linked once it is found. */
function BookingSettlement({ booking: b }: { booking: Booking }) {
  const can = useCan();
  const period = b.settlement_period;
  const q = useApiQuery(
    ['settlements', 'of-period', period],
    (env, signal) => call(env, 'listSettlements', { signal, query: { limit: 1, period_from: period ?? undefined, period_to: period ?? undefined } }),
    { enabled: Boolean(period) && can('settlements:read') },
  );
  if (!period) return <span className="muted">not recorded for this booking</span>;
  const s = q.data?.data[0];
  const month = periodLabel({ period_start: `${period}-01` });
  if (!s) return <>{q.isPending && q.fetchStatus !== 'idle' ? <Spinner label="Finding its settlement…" /> : `The settlement of ${month}`}</>;
  return (
    <>
      <a href={href('settlements', s.id)} className={s.number ? 'token' : undefined}>
        {s.number ?? `Draft of ${month}`}
      </a>{' '}
      <Badge value={s.status} />
      {b.status === 'CANCELLED' ? <div className="muted">A refund after that settlement was issued is an adjustment line of a later one.</div> : null}
    </>
  );
}

/** The booking's events (GET /events?booking_number=) and, for each, its deliveries to your endpoints. */
function BookingEvents({ booking: b }: { booking: Booking }) {
  const can = useCan();
  const enabled = can('webhooks:read');
  const events = useApiQuery(
    ['events', 'of-booking', b.booking_number],
    (env, signal) => call(env, 'listEvents', { signal, query: { limit: 50, booking_number: b.booking_number, created_from: b.created_at } }),
    { enabled },
  );
  const deliveries = useApiQuery(
    ['webhooks', 'deliveries', 'of-booking', b.booking_number],
    (env, signal) => call(env, 'listWebhookDeliveries', { signal, query: { limit: 100, booking_number: b.booking_number } }),
    { enabled },
  );
  if (!enabled) return null;
  const byEvent = new Map<string, WebhookDelivery[]>();
  for (const d of deliveries.data?.data ?? []) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
  return (
    <section aria-labelledby="bk-events">
      <h2 id="bk-events">Events and deliveries</h2>
      <QueryTable
        query={events}
        loading="Loading the booking's events…"
        empty="No events about this booking yet (each change of a booking records one: booking.confirmed, booking.cancelled, booking.completed)."
        caption="The booking's events, most recent first, with their deliveries"
        showCaption
        rowKey={(e) => e.id}
        columns={[
          { header: 'Event', rowHeader: true, cell: (e) => <code className="token">{e.type}</code> },
          { header: 'Recorded', cell: (e) => <DateTime value={e.created_at} /> },
          {
            header: 'Deliveries',
            cell: (e) => {
              const list = byEvent.get(e.id) ?? [];
              if (deliveries.isPending) return <span className="muted">loading…</span>;
              if (list.length === 0) return <span className="muted">none: no endpoint received this event type then</span>;
              return (
                <ul className="plain">
                  {list.map((d) => (
                    <li key={d.id}>
                      <a href={href('webhooks', 'deliveries', d.id)} aria-label={`Delivery ${shortId(d.id)} of ${e.type}`}>
                        {shortId(d.id)}
                      </a>{' '}
                      <Badge value={d.status} /> <span className="break muted">{d.url}</span>
                    </li>
                  ))}
                </ul>
              );
            },
          },
        ]}
      />
      {deliveries.isError ? <ErrorNote error={deliveries.error} /> : null}
    </section>
  );
}
