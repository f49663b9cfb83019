import { accessStore } from '../access/store';
import { dataTable, type TransactItem, transact } from '../db/client';
import { type RecordedEvent, recordEvent } from '../events/record';
import type { Env } from '../kernel/tenant';
import { type OpenQuote, quoteStore } from '../quotes/store';
import { publishEvents } from '../webhooks/queue';
import { type AdventureInput, CatalogFile } from './import-format';
import { inventoryStore } from './inventory';
import { type CatalogScope, inventoryKeys, PROD } from './keys';
import { catalogStore } from './store';

export type Progress = (line: string) => void;

/** One adventure.unavailable event per partner and environment concerned (holding open quotes). */
function unavailableEvents(quotes: OpenQuote[], data: Record<string, unknown>): RecordedEvent[] {
  const byTenant = new Map<string, OpenQuote[]>();
  for (const q of quotes) byTenant.set(`${q.partner_id} ${q.env}`, [...(byTenant.get(`${q.partner_id} ${q.env}`) ?? []), q]);
  // The payload names at most 100 quotes (quote_count has them all): an event stays far below DynamoDB's 400 KB.
  return [...byTenant.values()].map((qs) =>
    recordEvent(qs[0]!.partner_id, qs[0]!.env as Env, 'adventure.unavailable', {
      ...data,
      quote_ids: qs.slice(0, 100).map((q) => q.id),
      quote_count: qs.length,
    }),
  );
}

/** Writes a change with its events; beyond 100 items the events go in follow-up transactions. Then nudges their fan-out. */
async function commitWithEvents(change: TransactItem[], events: RecordedEvent[]) {
  const items = [...change, ...events.map((e) => e.item)];
  for (let i = 0; i < items.length; i += 100) {
    const cancelled = await transact(dataTable.client, {}, items.slice(i, i + 100));
    if (cancelled) throw new Error(`catalog change was cancelled (${cancelled.codes.join(', ')})`);
  }
  await publishEvents(events.map((e) => e.ref));
}

export class CatalogFileError extends Error {}

/**
 * Imports the production catalog: upserts every adventure of the file,
 * withdraws (active=false) those no longer in it, publishes a new listing
 * index, and makes sure a sandbox snapshot exists for sandbox tenants.
 */
export async function importCatalog(raw: unknown, progress: Progress = () => undefined) {
  const parsed = CatalogFile.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 10).map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new CatalogFileError(`the catalog file is invalid (${parsed.error.issues.length} problems):\n${lines.join('\n')}`);
  }
  const adventures = parsed.data.adventures;
  const dup = adventures.map((a) => a.slug).find((s, i, all) => all.indexOf(s) !== i);
  if (dup) throw new CatalogFileError(`the catalog file has the slug '${dup}' twice`);
  const existing = await catalogStore.allAdventures(PROD);
  const inFile = new Set(adventures.map((a) => a.id));
  const withdrawn = existing.filter((a) => a.active && !inFile.has(a.id)).map((a) => ({ ...a, active: false }));
  const newlyInactive = adventures.filter((a) => !a.active && existing.some((e) => e.id === a.id && e.active));
  // Rate packs that left an adventure stop being sellable, and a renamed adventure leaves no row under its old slug.
  const newById = new Map(adventures.map((a) => [a.id, a]));
  const removedPacks = existing.flatMap((old) => {
    const now = newById.get(old.id);
    if (!now) return [];
    const kept = new Set(now.rate_packs.map((rp) => rp.id));
    return old.rate_packs.filter((rp) => !kept.has(rp.id)).map((rp) => ({ adventure: old, ratePackId: rp.id }));
  });
  const renamed = existing.filter((old) => newById.has(old.id) && newById.get(old.id)!.slug !== old.slug);
  progress(`importing ${adventures.length} adventures (${adventures.reduce((n, a) => n + a.rate_packs.length, 0)} rate packs)`);
  await catalogStore.putAdventures(PROD, [...adventures, ...withdrawn]);
  await catalogStore.deleteContent(PROD, { slugs: renamed.map((a) => a.slug), ratePackIds: removedPacks.map((r) => r.ratePackId) });
  for (const r of removedPacks) {
    const quotes = await quoteStore.openOn(inventoryKeys.live, r.adventure.id, { ratePackId: r.ratePackId });
    await commitWithEvents(
      [],
      unavailableEvents(quotes, {
        adventure_id: r.adventure.id,
        adventure_slug: r.adventure.slug,
        rate_pack_id: r.ratePackId,
        date: null,
        start_time: null,
        reason: 'RATE_PACK_REMOVED',
      }),
    );
  }
  const meta = await catalogStore.rebuildIndex(PROD);
  progress(`index version ${meta.version}: ${meta.adventure_count} adventures in ${meta.chunk_count} chunks`);
  for (const a of [...withdrawn, ...newlyInactive]) {
    const quotes = await quoteStore.openOn(inventoryKeys.live, a.id);
    await commitWithEvents(
      [],
      unavailableEvents(quotes, { adventure_id: a.id, adventure_slug: a.slug, rate_pack_id: null, date: null, start_time: null, reason: 'WITHDRAWN' }),
    );
  }
  let sandbox = await catalogStore.currentSandboxScope();
  if (!sandbox) {
    sandbox = await catalogStore.createSandboxSnapshot();
    progress(`sandbox snapshot ${sandbox} created`);
  }
  return { adventures: adventures.length, withdrawn: withdrawn.map((a) => a.slug), index_version: meta.version, sandbox_snapshot: sandbox };
}

/** Withdraws an adventure from production sale (it stays listed, not bookable), with its events in the same transaction. */
export async function withdrawAdventure(slug: string) {
  const a = await catalogStore.adventure(PROD, slug);
  if (!a) throw new CatalogFileError(`no adventure '${slug}' in production`);
  const quotes = await quoteStore.openOn(inventoryKeys.live, a.id);
  await commitWithEvents(
    catalogStore.adventurePuts(PROD, { ...a, active: false }),
    unavailableEvents(quotes, { adventure_id: a.id, adventure_slug: slug, rate_pack_id: null, date: null, start_time: null, reason: 'WITHDRAWN' }),
  );
  await catalogStore.rebuildIndex(PROD);
  return { slug, active: false, events: new Set(quotes.map((q) => `${q.partner_id} ${q.env}`)).size };
}

/** Closes one production slot to sale, with its events in the same transaction. */
export async function closeSlot(ratePackId: string, date: string, startTime: string | null) {
  const rp = await catalogStore.ratePack(PROD, ratePackId);
  if (!rp) throw new CatalogFileError(`no rate pack ${ratePackId} in production`);
  const slot = { date, start_time: startTime };
  const quotes = await quoteStore.openOn(inventoryKeys.live, rp.adventure.id, { slotKey: inventoryKeys.slot(slot), ratePackId });
  await commitWithEvents(
    [inventoryStore.close(inventoryKeys.live, ratePackId, slot)],
    unavailableEvents(quotes, {
      adventure_id: rp.adventure.id,
      adventure_slug: rp.adventure.slug,
      rate_pack_id: ratePackId,
      date,
      start_time: startTime,
      reason: 'SLOT_CLOSED',
    }),
  );
  return { rate_pack_id: ratePackId, date, start_time: startTime, closed: true, events: new Set(quotes.map((q) => q.partner_id)).size };
}

function sellableIds(adventures: AdventureInput[]) {
  return new Map(adventures.filter((a) => a.active).map((a) => [a.id, a]));
}

/**
 * The weekly sandbox refresh: one new snapshot of production, then every
 * tenant is moved to it (their sandbox quotes, bookings, inventory and
 * idempotency keys live outside the snapshot and survive). Tenants holding
 * open quotes on adventures that are no longer sellable get an
 * adventure.unavailable event in the same transaction as their move.
 */
export async function refreshSandboxes(progress: Progress = () => undefined, now = new Date()) {
  // Tenants without a pointer of their own browse the snapshot that was current until now.
  const previousCurrent = await catalogStore.currentSandboxScope();
  const snapshot = await catalogStore.createSandboxSnapshot(now);
  progress(`snapshot ${snapshot} created from production`);
  const fresh = sellableIds(await catalogStore.allAdventures(snapshot));
  const partners = await accessStore.listPartners();
  const oldContent = new Map<CatalogScope, Map<string, AdventureInput>>();
  let events = 0;
  const failed: string[] = [];
  for (const [i, partner] of partners.entries()) {
    const previous = partner.sandbox_catalog ?? previousCurrent;
    let gone: AdventureInput[] = [];
    if (previous && previous !== snapshot) {
      if (!oldContent.has(previous)) oldContent.set(previous, sellableIds(await catalogStore.allAdventures(previous)));
      gone = [...oldContent.get(previous)!.values()].filter((a) => !fresh.has(a.id));
    }
    const recorded: RecordedEvent[] = [];
    for (const a of gone) {
      const quotes = await quoteStore.openOn(inventoryKeys.sandbox(partner.partner_id), a.id, { now });
      recorded.push(
        ...unavailableEvents(quotes, {
          adventure_id: a.id,
          adventure_slug: a.slug,
          rate_pack_id: null,
          date: null,
          start_time: null,
          reason: 'SANDBOX_REFRESH',
        }),
      );
    }
    events += recorded.length;
    try {
      await commitWithEvents([accessStore.sandboxCatalogItem(partner.partner_id, snapshot, now)], recorded);
      progress(`refreshed ${i + 1}/${partners.length} tenants (${partner.name})`);
    } catch (e) {
      // One tenant's failure does not stop the others; the next run retries it.
      failed.push(partner.partner_id);
      progress(`FAILED ${i + 1}/${partners.length} tenants (${partner.name}): ${(e as Error).message}`);
    }
  }
  return { snapshot, tenants: partners.length, events, failed };
}
