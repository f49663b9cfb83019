import { randomUUID } from 'node:crypto';
import { dataTable, type TransactItem, transact } from '../db/client';
import { backoff } from '../db/retry';
import type { UnavailableReason } from '../events/payloads';
import { eventIdFor, type RecordedEvent, recordEvent } from '../events/record';
import type { Env } from '../kernel/tenant';
import { quoteStore } from '../quotes/store';
import { publishEvents } from '../webhooks/queue';
import { webhookStore } from '../webhooks/store';
import { inventoryStore } from './inventory';
import { inventoryKeys } from './keys';
import type { SlotRef } from './slots';

/** What stopped being sellable, where, and why. */
export interface Unavailability {
  /** LIVE, or a sandbox tenant's inventory. */
  inventory: string;
  env: Env;
  /** The sandbox tenant whose catalog changed: the only possible recipient. Absent in live: every subscribed partner. */
  tenant?: string;
  adventure: { id: string; slug: string };
  ratePackId: string | null;
  slot: SlotRef | null;
  reason: UnavailableReason;
}

const TYPE = 'adventure.unavailable';
/** A transaction takes at most 100 items. */
const MAX_ITEMS = 100;
/** The payload names at most this many quotes (quote_count has them all): an event stays far below DynamoDB's 400 KB. */
const MAX_QUOTE_IDS = 100;

/** The partners an announcement goes to: every partner of the environment with an ACTIVE endpoint subscribed to it (live), or the tenant if subscribed (sandbox). */
export const recipientsOf = (u: Pick<Unavailability, 'env' | 'tenant'>) => webhookStore.subscribers(u.env, TYPE, u.tenant);

/**
 * One adventure.unavailable per recipient, each naming that partner's own open
 * quotes on what became unsellable (possibly none). The event ids derive from
 * the occasion, so the same announcement made twice records nothing twice.
 */
export async function unavailableEvents(u: Unavailability, recipients: string[], occasion: string, now: Date): Promise<RecordedEvent[]> {
  if (recipients.length === 0) return [];
  const slotKey = u.slot ? inventoryKeys.slot(u.slot) : undefined;
  const quotes = await quoteStore.openOn(u.inventory, u.adventure.id, {
    now,
    ...(slotKey ? { slotKey } : {}),
    ...(u.ratePackId ? { ratePackId: u.ratePackId } : {}),
  });
  return recipients.map((partnerId) => {
    const own = quotes.filter((q) => q.partner_id === partnerId && q.env === u.env);
    return recordEvent(
      partnerId,
      u.env,
      TYPE,
      {
        adventure_id: u.adventure.id,
        adventure_slug: u.adventure.slug,
        rate_pack_id: u.ratePackId,
        date: u.slot?.date ?? null,
        start_time: u.slot?.start_time ?? null,
        reason: u.reason,
        quote_ids: own.slice(0, MAX_QUOTE_IDS).map((q) => q.id),
        quote_count: own.length,
      },
      now,
      dataTable,
      { id: eventIdFor(TYPE, u.reason, u.inventory, u.adventure.id, u.ratePackId ?? '-', slotKey ?? '-', occasion, partnerId, u.env) },
    );
  });
}

/** Items that commit together: a catalog change, a marker, a condition, or one event with its once-marker. */
interface Unit {
  items: TransactItem[];
  event?: RecordedEvent;
  name?: string;
}

export const fixedUnit = (name: string, items: TransactItem[]): Unit => ({ name, items });

/**
 * Commits `first`, the events and `last` in transactions of at most 100
 * items: `first` with the first events, `last` with the last ones (a unit is
 * never split). An event recorded before (its once-marker exists) is left
 * out and the rest committed. Then nudges the fan-out of what was written.
 * `failed` names the first or last unit whose condition failed, if one did.
 */
export async function commitAnnouncement(first: Unit[], events: RecordedEvent[], last: Unit[] = []): Promise<{ written: RecordedEvent[]; failed?: string }> {
  const units: Unit[] = [...first, ...events.map((e) => ({ items: [e.item, e.once!], event: e })), ...last];
  const chunks: Unit[][] = [];
  let current: Unit[] = [];
  let size = 0;
  for (const u of units) {
    if (size + u.items.length > MAX_ITEMS && current.length) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(u);
    size += u.items.length;
  }
  if (current.length) chunks.push(current);
  const written: RecordedEvent[] = [];
  let failed: string | undefined;
  for (const chunk of chunks) {
    failed = await commitChunk(chunk, written);
    if (failed) break;
  }
  await publishEvents(written);
  return failed ? { written, failed } : { written };
}

/** One transaction of units; an event recorded before is left out. The name of a failed non-event unit, if one failed. */
async function commitChunk(units: Unit[], written: RecordedEvent[]): Promise<string | undefined> {
  let chunk = units;
  for (let attempt = 0; chunk.length; attempt++) {
    const cancelled = await transact(
      dataTable.client,
      {},
      chunk.flatMap((u) => u.items),
    );
    if (!cancelled) {
      written.push(...chunk.flatMap((u) => (u.event ? [u.event] : [])));
      return undefined;
    }
    const failed = new Set<Unit>();
    let i = 0;
    for (const u of chunk) for (const _ of u.items) if (cancelled.codes[i++] === 'ConditionalCheckFailed') failed.add(u);
    const fixed = [...failed].find((u) => !u.event);
    if (fixed) return fixed.name ?? 'change';
    if (failed.size) {
      // Recorded by an earlier run of the same announcement.
      chunk = chunk.filter((u) => !failed.has(u));
      continue;
    }
    if (!cancelled.conflict || attempt >= 10) throw new Error(`announcement was cancelled (${cancelled.codes.join(', ')})`);
    await backoff(attempt);
  }
  return undefined;
}

/**
 * Announces that something became unsellable, with the change that makes it
 * so (`change`, committed with the first events). The occasion is named by a
 * marker (`marker`, a subject of inventoryKeys.unavailable): the first
 * announcement creates it, a re-run finds it and records only what is
 * missing. `guard` must hold for anything to be written (a sell-out: no seat
 * left). Returns the number of events recorded now.
 */
export async function announceUnavailable(
  u: Unavailability,
  o: { marker: string; change?: TransactItem[]; guard?: TransactItem; now?: Date },
): Promise<number> {
  const now = o.now ?? new Date();
  for (let round = 0; ; round++) {
    const recipients = await recipientsOf(u);
    if (recipients.length === 0 && !o.change?.length) return 0;
    const existing = await inventoryStore.marker(u.inventory, u.adventure.id, o.marker);
    const generation = existing ?? randomUUID();
    const first = [
      ...(o.change?.length ? [fixedUnit('change', o.change)] : []),
      ...(existing ? [] : [fixedUnit('marker', [inventoryStore.putMarker(u.inventory, u.adventure.id, o.marker, generation, u.reason, now.toISOString())])]),
      ...(o.guard ? [fixedUnit('guard', [o.guard])] : []),
    ];
    const r = await commitAnnouncement(first, await unavailableEvents(u, recipients, generation, now));
    if (!r.failed) return r.written.length;
    if (r.failed === 'guard') return 0;
    // Another run created the marker meanwhile: read it and go on under its generation.
    if (r.failed === 'marker' && round < 3) continue;
    throw new Error(`adventure.unavailable: the ${r.failed} of ${u.adventure.slug} was refused`);
  }
}

/**
 * After a booking: if its slot has no seat left, announce it once (SOLD_OUT).
 * The marker stays until a cancellation frees seats on the slot, so a later
 * sell-out is announced again.
 */
export async function announceIfSoldOut(
  b: { inventory: string; env: Env; partnerId: string; adventure: { id: string; slug: string }; ratePackId: string; slot: SlotRef; capacity: number },
  now = new Date(),
): Promise<number> {
  const row = await inventoryStore.get(b.inventory, b.ratePackId, b.slot);
  if (row.closed || row.sold < b.capacity) return 0;
  return announceUnavailable(
    {
      inventory: b.inventory,
      env: b.env,
      ...(b.env === 'test' ? { tenant: b.partnerId } : {}),
      adventure: b.adventure,
      ratePackId: b.ratePackId,
      slot: b.slot,
      reason: 'SOLD_OUT',
    },
    {
      marker: inventoryKeys.soldOutSubject(b.ratePackId, b.slot),
      guard: inventoryStore.soldOutCheck(b.inventory, b.ratePackId, b.slot, b.capacity),
      now,
    },
  );
}

/** The item a cancellation commits with the seats it frees: the slot's sell-out may be announced again. */
export const soldOutCleared = (inventory: string, adventureId: string, ratePackId: string, slot: SlotRef) =>
  inventoryStore.deleteMarker(inventory, adventureId, inventoryKeys.soldOutSubject(ratePackId, slot));
