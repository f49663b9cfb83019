import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { completeBooking } from '../bookings/complete';
import { bookingStore } from '../bookings/store';
import { dataTable } from '../db/client';
import { sleep } from '../db/retry';
import { eventKeys } from '../events/keys';
import { logger } from '../kernel/logger';
import { operatorTenant, type Tenant } from '../kernel/tenant';
import { addDays, localToInstant } from '../kernel/time';
import { settleTenant } from '../settlements/issue';
import { nextPeriod, periodOf, previousPeriod } from '../settlements/period';
import { healthThresholds, judgeFailingEndpoint } from '../webhooks/health';
import type { DeliveryRecord } from '../webhooks/model';
import { enqueue } from '../webhooks/queue';
import { webhookStore } from '../webhooks/store';
import type { ClockMessage } from './queue';
import { clockStore } from './store';

const HOUR = 3_600_000;
/** An advance plays at most this many instants: a sandbox's month holds far fewer. */
export const MAX_STEPS = 2_000;
/** How long one instant may take to settle (its webhooks fanned out, its due attempts answered): the receivers' 10 s timeouts, with room. */
const SETTLE_MS = 60_000;
/** Deliveries are listed through an index: what was written just before shows there within about a second. */
const INDEX_SETTLE_MS = 1_000;
/** A due attempt nobody claimed for this long (its queue message lost or late) is queued again. */
const UNCLAIMED_MS = 5_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** When the clock passing a travel date completes the booking: the start of the next day, Morocco time (as the daily job). */
export const completionAt = (travelDate: string) => localToInstant(addDays(travelDate, 1)).getTime();
/** When a month's settlement is issued: the 1st of the next month, 00:00 Morocco time. */
export const monthEndAt = (period: string) => localToInstant(`${nextPeriod(period)}-01`).getTime();

interface Due {
  /** Work due at or before the instant being played, by what it acts on. */
  now: Map<string, () => Promise<unknown>>;
  /** The earliest instant after it at which more falls due. */
  next?: number;
}

/**
 * Plays an advance of a sandbox clock: each instant at which something falls due, in time order, the clock
 * standing at that instant while its work runs, so that what it records carries that time. At each instant:
 * trips whose travel date has passed complete; the 1st of a month issues the months before it; webhook
 * retries due are attempted (by the webhook worker, which reads the clock); failing endpoints meet their
 * thresholds. Then the instant settles (its events fanned out, its first attempts answered) before the next.
 * Resumable: every step is conditional, so a message received again (a worker that died) goes on from the
 * instant the clock shows.
 */
export async function playAdvance(m: ClockMessage): Promise<void> {
  const c = await clockStore.get(m.partner_id);
  if (c?.status !== 'advancing' || c.advance_id !== m.advance_id || !c.frozen_at || !c.advancing_to) return;
  const tenant = operatorTenant(m.partner_id, 'test');
  const to = Date.parse(c.advancing_to);
  // Where the advance began (a resumed advance goes on from frozen_at, and looks again at what it did since).
  const startedAt = c.advanced_from ?? c.frozen_at;
  let at = Date.parse(c.frozen_at);
  // The month before the advance's first one: its end is due at once, so that a month the clock ran past while
  // ready (or the real monthly job has not reached yet) is issued at the advance's first instant.
  let month = previousPeriod(periodOf(new Date(startedAt)));
  const tried = new Set<string>();
  let steps = 0;
  for (; steps < MAX_STEPS; steps++) {
    // The clock reads `at` before its work settles (the webhook worker attempts at the clock's time); also the
    // advance's heartbeat, false once another advance took it over.
    if (!(await clockStore.step(m.partner_id, m.advance_id, iso(at)))) return;
    const pending = await settle(tenant, at, startedAt);
    const due = await dueWork(tenant, at, month, pending);
    if (monthEndAt(month) <= at) month = periodOf(new Date(at));
    // Each piece once per instant: one that changed nothing (a booking contended, an endpoint changed meanwhile) is
    // left to the daily job or the next failure, not tried again and again.
    const fresh = [...due.now].filter(([what]) => !tried.has(`${what}@${at}`));
    if (fresh.length) {
      for (const [what, work] of fresh) {
        tried.add(`${what}@${at}`);
        await work();
      }
      continue;
    }
    const next = Math.min(due.next ?? to, to);
    if (next <= at) break;
    at = next;
  }
  if (steps >= MAX_STEPS) logger.warn('clock advance stopped at its step limit', { partner_id: m.partner_id, at: iso(at), steps });
  const done = await clockStore.finish(m.partner_id, m.advance_id, iso(to));
  logger.info('sandbox clock advanced', { partner_id: m.partner_id, from: startedAt, to: iso(to), steps, finished: done });
}

/** What falls due at `at` or before, and the next instant after it at which something does. */
async function dueWork(t: Tenant, at: number, month: string, pending: DeliveryRecord[]): Promise<Due> {
  const due: Due = { now: new Map() };
  const later = (when: number) => {
    if (when > at && (due.next === undefined || when < due.next)) due.next = when;
  };
  // The 1st of a month: the month before it closes, as the monthly job closes it.
  const monthEnd = monthEndAt(month);
  if (monthEnd <= at) due.now.set(`month ${month}`, () => settleTenant(t.partnerId, t.env, previousPeriod(periodOf(new Date(at))), undefined, new Date(at)));
  else later(monthEnd);
  for (const b of await confirmedBookings(t)) {
    const when = completionAt(b.travel_date);
    if (when > at) {
      later(when);
      continue;
    }
    due.now.set(`booking ${b.booking_number}`, async () => {
      const booking = await bookingStore.get(b.booking_number);
      if (booking?.status === 'CONFIRMED') await completeBooking(booking, undefined, new Date(at));
    });
  }
  const { WEBHOOK_WARN_AFTER_HOURS: warnAfter, WEBHOOK_DISABLE_AFTER_HOURS: disableAfter } = healthThresholds();
  for (const e of await webhookStore.listEndpoints(t.partnerId, t.env)) {
    if (e.status !== 'ACTIVE' || !e.failing_since) continue;
    const since = Date.parse(e.failing_since);
    const thresholds = [since + disableAfter * HOUR, ...(e.failure_warned_at ? [] : [since + warnAfter * HOUR])];
    if (thresholds.some((when) => when <= at)) due.now.set(`endpoint ${e.id}`, () => judgeFailingEndpoint(e, new Date(at)));
    else for (const when of thresholds) later(when);
  }
  for (const d of pending) {
    const when = Date.parse(d.next_attempt_at ?? '');
    if (Number.isNaN(when)) continue;
    // Due by now: settle() saw to those; a retry due later is attempted when the clock reaches it.
    if (when > at) later(when);
  }
  return due;
}

/** The tenant's CONFIRMED bookings, from their list rows (the table itself, strongly consistent). */
async function confirmedBookings(t: Tenant) {
  const rows = [];
  let after: string | undefined;
  do {
    const page = await bookingStore.listForTenant(t.partnerId, t.env, { limit: 100, status: ['CONFIRMED'], createdFrom: '0000', createdTo: '9999' }, after);
    rows.push(...page.items);
    after = page.next;
  } while (after);
  return rows;
}

/** The tenant's PENDING deliveries as they are now: listed through the index, each read again from the table. */
async function pendingDeliveries(t: Tenant): Promise<DeliveryRecord[]> {
  const listed: DeliveryRecord[] = [];
  let after: string | undefined;
  do {
    const page = await webhookStore.listDeliveries(t.partnerId, t.env, { limit: 100, status: ['PENDING'] }, after);
    listed.push(...page.items);
    after = page.next;
  } while (after && listed.length < 5_000);
  const fresh = await Promise.all(listed.map((d) => webhookStore.getDelivery(d.id)));
  return fresh.filter((d): d is DeliveryRecord => d?.status === 'PENDING');
}

/** Events of the tenant recorded since the advance began that the webhook worker has not fanned out yet. */
async function undispatched(t: Tenant, since: string): Promise<number> {
  const r = await dataTable.client.send(
    new QueryCommand({
      TableName: dataTable.name(),
      KeyConditionExpression: 'pk = :p AND sk >= :since',
      FilterExpression: 'dispatch = :pending',
      ExpressionAttributeValues: { ':p': eventKeys.partition(t.partnerId, t.env), ':since': since, ':pending': 'PENDING' },
      ConsistentRead: true,
      Select: 'COUNT',
    }),
  );
  return r.Count ?? 0;
}

/**
 * Waits until the instant `at` has played out: every event recorded since the advance began is fanned out,
 * and no delivery due by `at` waits for an attempt (the webhook worker answers them at the clock's time). A due
 * attempt that nobody claimed for a while is queued again; one waiting for a retry is brought forward to `at`.
 */
async function settle(t: Tenant, at: number, since: string): Promise<DeliveryRecord[]> {
  const deadline = Date.now() + SETTLE_MS;
  const queued = new Map<string, number>();
  for (;;) {
    if ((await undispatched(t, since)) === 0) {
      await sleep(INDEX_SETTLE_MS);
      const pending = await pendingDeliveries(t);
      const waiting = pending.filter((d) => Date.parse(d.next_attempt_at ?? '') <= at);
      // Settled: the PENDING deliveries as they are, for what falls due next.
      if (!waiting.length) return pending;
      for (const d of waiting) await attemptDue(d, at, queued);
    }
    if (Date.now() > deadline) {
      logger.warn('clock advance moved on before its instant settled', { partner_id: t.partnerId, at: iso(at) });
      return pendingDeliveries(t);
    }
    await sleep(250);
  }
}

/** Queues the due attempt of a delivery, unless it is being attempted or was queued a moment ago. */
async function attemptDue(d: DeliveryRecord, at: number, queued: Map<string, number>) {
  const claimed = typeof d.claim_until === 'number' && d.claim_until > Date.now() && d.claimed_attempt === d.attempts + 1;
  const last = queued.get(d.id);
  if (claimed || (last !== undefined && Date.now() - last < UNCLAIMED_MS)) return;
  // First attempts are queued by the fan-out: only a late one is queued again.
  if (d.attempts === 0 && last === undefined) {
    queued.set(d.id, Date.now());
    return;
  }
  const moved = d.attempts > 0 && Date.parse(d.next_attempt_at!) < at ? await webhookStore.redriveNow(d, new Date(at), undefined, d.next_attempt_at!) : d;
  if (moved) await enqueue([{ kind: 'attempt', delivery_id: d.id, attempt: d.attempts + 1 }]);
  queued.set(d.id, Date.now());
}
