import { type FormEvent, useState } from 'react';
import { call } from '../api';
import { href, useApiQuery, useWrite } from '../hooks';
import { DataTable, QueryTable, QueryView } from '../lists';
import { useCan } from '../me';
import type { Settlement } from '../types';
import { BookingLink, DateOnly, money, Outcome, PageTitle } from '../ui';
import { SandboxClockSection } from './SandboxClock';
import { periodLabel } from './Settlements';

export default function SandboxTools() {
  const can = useCan();
  return (
    <>
      <PageTitle>Sandbox tools</PageTitle>
      <p>Play a month in minutes: move the sandbox's clock, travel a booking now, close the month's settlement, pay it. These act on sandbox data only.</p>
      <SandboxClockSection />
      {can('bookings:write') ? <CompleteBooking /> : null}
      {can('settlements:write') ? (
        <>
          <RunSettlement />
          <PaySettlement />
        </>
      ) : null}
    </>
  );
}

function CompleteBooking() {
  const [number, setNumber] = useState('');
  const confirmed = useApiQuery(['bookings', 'list', 'confirmed-for-tools'], (env, signal) =>
    call(env, 'listBookings', { signal, query: { status: ['CONFIRMED'], limit: 10 } }),
  );
  const complete = useWrite((n: string, { env, idempotencyKey }) =>
    call(env, 'completeBookingTestHelper', { path: { booking_number: n }, body: {}, idempotencyKey }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    complete.mutate(number.trim());
  };
  return (
    <section aria-labelledby="sb-complete">
      <h2 id="sb-complete">Complete a booking</h2>
      <p>The booking travels now, whatever its date: it becomes COMPLETED and booking.completed is sent.</p>
      <QueryTable
        query={confirmed}
        loading="Loading confirmed bookings…"
        empty="No confirmed booking in the sandbox."
        caption="Confirmed bookings (the 10 most recent)"
        showCaption
        rowKey={(b) => b.booking_number}
        columns={[
          {
            header: 'Booking',
            cell: (b) => <BookingLink number={b.booking_number} />,
          },
          { header: 'Travel date', cell: (b) => <DateOnly value={b.travel_date} /> },
          { header: 'Amount', numeric: true, cell: (b) => money(b.net_amount) },
          {
            header: 'Action',
            cell: (b) => (
              <button type="button" className="secondary" disabled={complete.isPending} onClick={() => complete.mutate(b.booking_number)}>
                Complete {b.booking_number}
              </button>
            ),
          },
        ]}
      />
      <form className="row" onSubmit={submit}>
        <label>
          Booking number
          <input type="text" required placeholder="PTB-XXXX-XXXX" value={number} onChange={(e) => setNumber(e.target.value)} />
        </label>
        <button type="submit" disabled={complete.isPending}>
          Complete the booking
        </button>
      </form>
      <Outcome
        pending={complete.isPending}
        pendingLabel="Completing the booking…"
        error={complete.error}
        success={complete.data ? `Booking ${complete.data.booking_number} is ${complete.data.status}.` : null}
      />
    </section>
  );
}

function RunSettlement() {
  const [period, setPeriod] = useState('');
  const run = useWrite((body: { period?: string }, { env, idempotencyKey }) => call(env, 'runSettlementsTestHelper', { body, idempotencyKey }));
  const issued = run.data?.data;
  return (
    <section aria-labelledby="sb-run">
      <h2 id="sb-run">Run the month's settlement</h2>
      <p>
        Issues your open sandbox settlements, with their invoice and statement, as the monthly job does on the 1st. Leave the month empty to close every open
        one, the running month included.
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          run.mutate(period ? { period } : {});
        }}
      >
        <label>
          Up to the month (optional)
          <input type="month" value={period} onChange={(e) => setPeriod(e.target.value)} />
        </label>
        <button type="submit" disabled={run.isPending}>
          Run the settlement
        </button>
      </form>
      <Outcome
        pending={run.isPending}
        pendingLabel="Issuing settlements and rendering their documents…"
        error={run.error}
        success={
          issued ? (
            issued.length === 0 ? (
              'Nothing to issue: no open settlement holds bookings.'
            ) : (
              <>
                Issued:{' '}
                {issued.map((s: Settlement, i: number) => (
                  <span key={s.id}>
                    {i > 0 ? ', ' : ''}
                    <a href={href('settlements', s.id)}>{s.number}</a> ({periodLabel(s)}, {money(s.total_due)})
                  </span>
                ))}
                .
              </>
            )
          ) : null
        }
      />
    </section>
  );
}

function PaySettlement() {
  const [reference, setReference] = useState('');
  const q = useApiQuery(['settlements', 'list', 'issued-for-tools'], (env, signal) =>
    call(env, 'listSettlements', { signal, query: { status: ['ISSUED'], limit: 10 } }),
  );
  const pay = useWrite((v: { id: string; transfer_reference?: string }, { env, idempotencyKey }) =>
    call(env, 'paySettlementTestHelper', {
      path: { id: v.id },
      body: v.transfer_reference ? { transfer_reference: v.transfer_reference } : {},
      idempotencyKey,
    }),
  );
  return (
    <section aria-labelledby="sb-pay">
      <h2 id="sb-pay">Pay a settlement</h2>
      <p>Records your bank's transfer for an issued settlement: it becomes PAID and settlement.paid is sent.</p>
      <label className="narrow">
        Transfer reference (optional)
        <input type="text" maxLength={64} value={reference} onChange={(e) => setReference(e.target.value)} />
      </label>
      <QueryView query={q} loading="Loading issued settlements…">
        {(page) =>
          page.data.length === 0 ? (
            <p>No issued settlement waits for payment.</p>
          ) : (
            <DataTable
              caption="Issued settlements"
              showCaption
              rows={page.data}
              rowKey={(s) => s.id}
              columns={[
                { header: 'Invoice', cell: (s) => <a href={href('settlements', s.id)}>{s.number}</a> },
                { header: 'Month', cell: (s) => periodLabel(s) },
                { header: 'Total due', numeric: true, cell: (s) => money(s.total_due) },
                {
                  header: 'Action',
                  cell: (s) => (
                    <button
                      type="button"
                      className="secondary"
                      disabled={pay.isPending}
                      onClick={() => pay.mutate({ id: s.id, ...(reference.trim() ? { transfer_reference: reference.trim() } : {}) })}
                    >
                      Pay {s.number}
                    </button>
                  ),
                },
              ]}
            />
          )
        }
      </QueryView>
      <Outcome
        pending={pay.isPending}
        pendingLabel="Recording the payment…"
        error={pay.error}
        success={pay.data ? `Settlement ${pay.data.number} is ${pay.data.status}.` : null}
      />
    </section>
  );
}
