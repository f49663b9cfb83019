import { tenantTime } from '../clock/store';
import { dataTable, type TransactItem, transact } from '../db/client';
import { batchGet } from '../db/query';
import { backoff } from '../db/retry';
import { type EventRecord, eventStore } from '../events/store';
import type { EventRef } from '../events/types';
import { newDelivery } from './deliveries';
import type { DeliveryRecord, EndpointRecord, FanOutRequest } from './model';
import { enqueue } from './queue';
import { COUNT_BACKOFF_CAP_MS, COUNT_RETRIES, MAX_ENDPOINTS, webhookStore } from './store';

/** One pending event and the deliveries it gets. */
interface Plan {
  ref: EventRef;
  deliveries: DeliveryRecord[];
}

const refKey = (r: EventRef) => `${r.pk}\n${r.sk}`;
/**
 * A transaction takes at most 100 items: an event's mark and its deliveries (at most 16, each with its endpoint's row)
 * always fit in one, beside the count of PENDING deliveries of each endpoint (at most 16: store.createDeliveries).
 */
const MAX_ITEMS = 100 - MAX_ENDPOINTS;

/** The deliveries of one event: one per ACTIVE endpoint of its partner and environment subscribed to its type. */
function plan(ref: EventRef, record: EventRecord, endpoints: EndpointRecord[], now: Date): Plan {
  const ev = record.event;
  const deliveries = endpoints
    .filter((e) => e.status === 'ACTIVE' && e.event_types.includes(ev.type))
    .slice(0, MAX_ENDPOINTS)
    .map((ep) => newDelivery(ev, ref, ep, now));
  return { ref, deliveries };
}

/**
 * Commits events' dispatched marks with their deliveries in one transaction,
 * then queues the first attempts. When it is cancelled (an event was fanned
 * out meanwhile by another worker, or a concurrent transaction got in the
 * way), each event is tried alone, so one event never holds the others back.
 * The deliveries queued per event.
 */
async function commit(plans: Plan[], now: Date, out: Map<string, number>, round = 0): Promise<void> {
  const items: TransactItem[] = [
    ...plans.map((p) => eventStore.markDispatched(p.ref, p.deliveries.length, now)),
    ...webhookStore.createDeliveries(plans.flatMap((p) => p.deliveries)),
  ];
  const cancelled = await transact(dataTable.client, {}, items);
  if (cancelled) {
    if (plans.length > 1) for (const p of plans) await commit([p], now, out);
    // Another fan-out met it on an endpoint's count: tried again. A failed condition: the event was fanned out already.
    else if (cancelled.conflict && round < COUNT_RETRIES) {
      await backoff(round, 10, COUNT_BACKOFF_CAP_MS);
      await commit(plans, now, out, round + 1);
    } else if (cancelled.conflict) throw new Error(`fan-out kept meeting concurrent transactions (${cancelled.codes.join(', ')})`);
    else out.set(refKey(plans[0]!.ref), 0);
    return;
  }
  await enqueue(plans.flatMap((p) => p.deliveries.map((d) => ({ kind: 'attempt' as const, delivery_id: d.id, attempt: 1 }))));
  for (const p of plans) out.set(refKey(p.ref), p.deliveries.length);
}

/** Groups plans into transactions of at most MAX_ITEMS items, an event never split from its deliveries. */
function chunks(plans: Plan[]): Plan[][] {
  const out: Plan[][] = [];
  let size = MAX_ITEMS;
  for (const p of plans) {
    const n = 1 + 2 * p.deliveries.length;
    if (size + n > MAX_ITEMS) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(p);
    size += n;
  }
  return out;
}

/**
 * Fans a batch of recorded events out: the events not carried by their
 * request are read in one BatchGetItem, each partner and environment's
 * endpoints in one Query, and each group's deliveries commit with the events'
 * dispatched marks in one transaction. Returns, per event, the deliveries queued (0 when it was already
 * fanned out) or the error that stopped its group: those are retried alone.
 */
export async function fanOutAll(requests: FanOutRequest[], now = new Date()): Promise<Map<string, number | Error>> {
  const results = new Map<string, number | Error>();
  // An event carried by its request is taken as pending: its dispatched mark is conditional on that anyway.
  const carried = (r: FanOutRequest) => r.event !== undefined && r.partner_id !== undefined && r.env !== undefined;
  const byKey = new Map<string, FanOutRequest>();
  for (const r of requests) if (!byKey.has(refKey(r)) || carried(r)) byKey.set(refKey(r), r);
  const unique = [...byKey.values()];
  const records: (EventRecord & EventRef)[] = unique
    .filter(carried)
    .map((r) => ({ pk: r.pk, sk: r.sk, partner_id: r.partner_id!, env: r.env!, event: r.event!, dispatch: 'PENDING' as const }));
  const unread = unique.filter((r) => !carried(r)).map((r) => ({ pk: r.pk, sk: r.sk }));
  for (let i = 0; i < unread.length; i += 100)
    records.push(...((await batchGet(dataTable, unread.slice(i, i + 100))) as unknown as (EventRecord & EventRef)[]));
  const groups = new Map<string, (EventRecord & EventRef)[]>();
  for (const r of records) {
    if (r.dispatch !== 'PENDING') continue;
    const key = `${r.partner_id}|${r.env}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  await Promise.all(
    [...groups.values()].map(async (events) => {
      const counts = new Map<string, number>();
      try {
        const { partner_id, env } = events[0]!;
        // A sandbox's deliveries are created at its clock's time.
        const [endpoints, at] = await Promise.all([webhookStore.listEndpoints(partner_id, env), tenantTime(partner_id, env, now)]);
        const plans = events.map((r) => plan({ pk: r.pk, sk: r.sk }, r, endpoints, at));
        for (const c of chunks(plans)) await commit(c, at, counts);
      } catch (e) {
        for (const r of events) if (!counts.has(refKey(r))) results.set(refKey(r), e as Error);
      }
      for (const [k, n] of counts) results.set(k, n);
    }),
  );
  // Missing (never recorded) or already dispatched: nothing to do.
  for (const r of unique) if (!results.has(refKey(r))) results.set(refKey(r), 0);
  return results;
}

/** The result of `fanOutAll` for one of its events. */
export function fanOutResult(results: Map<string, number | Error>, ref: EventRef): number {
  const r = results.get(refKey(ref));
  if (r instanceof Error) throw r;
  return r ?? 0;
}
