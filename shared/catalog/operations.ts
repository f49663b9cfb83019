import { accessStore } from '../access/store';
import { tenantTime } from '../clock/store';
import { dataTable, type TransactItem, transact } from '../db/client';
import type { RecordedEvent } from '../events/record';
import { cloneConsumerReviews } from '../reviews/seed';
import { type AdventureInput, CatalogFile } from './import-format';
import { inventoryStore } from './inventory';
import { type CatalogScope, inventoryKeys, PROD } from './keys';
import { catalogStore } from './store';
import { announceUnavailable, commitAnnouncement, fixedUnit, recipientsOf, type Unavailability, unavailableEvents } from './unavailable';

export type Progress = (line: string) => void;

/** Production: every partner subscribed to adventure.unavailable in live hears of it. */
const live = (adventure: { id: string; slug: string }, rest: Pick<Unavailability, 'ratePackId' | 'slot' | 'reason'>): Unavailability => ({
  inventory: inventoryKeys.live,
  env: 'live',
  adventure,
  ...rest,
});

/** Unconditional writes (marker removals), 100 per transaction. */
async function writeAll(items: TransactItem[]) {
  for (let i = 0; i < items.length; i += 100) {
    const cancelled = await transact(dataTable.client, {}, items.slice(i, i + 100));
    if (cancelled) throw new Error(`catalog change was cancelled (${cancelled.codes.join(', ')})`);
  }
}

export class CatalogFileError extends Error {}

/** Consumer-site reviews come with the catalog: each sandbox snapshot gets a clone of production's. */
const withReviews = (scope: CatalogScope) => cloneConsumerReviews(PROD, scope);

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
  // Sold again: an adventure back on sale, or a rate pack back in its adventure, will be announced again when it next stops.
  const reactivated = adventures.filter((a) => a.active && existing.some((e) => e.id === a.id && !e.active));
  const packsBack = existing.flatMap((old) => {
    const now = newById.get(old.id);
    if (!now) return [];
    const had = new Set(old.rate_packs.map((rp) => rp.id));
    return now.rate_packs.filter((rp) => !had.has(rp.id)).map((rp) => ({ adventureId: old.id, ratePackId: rp.id }));
  });
  progress(`importing ${adventures.length} adventures (${adventures.reduce((n, a) => n + a.rate_packs.length, 0)} rate packs)`);
  await catalogStore.putAdventures(PROD, [...adventures, ...withdrawn]);
  await catalogStore.deleteContent(PROD, { slugs: renamed.map((a) => a.slug), ratePackIds: removedPacks.map((r) => r.ratePackId) });
  await writeAll([
    ...reactivated.map((a) => inventoryStore.deleteMarker(inventoryKeys.live, a.id, inventoryKeys.withdrawnSubject)),
    ...packsBack.map((p) => inventoryStore.deleteMarker(inventoryKeys.live, p.adventureId, inventoryKeys.ratePackRemovedSubject(p.ratePackId))),
  ]);
  for (const r of removedPacks) {
    await announceUnavailable(live(r.adventure, { ratePackId: r.ratePackId, slot: null, reason: 'RATE_PACK_REMOVED' }), {
      marker: inventoryKeys.ratePackRemovedSubject(r.ratePackId),
    });
  }
  const meta = await catalogStore.rebuildIndex(PROD);
  progress(`index version ${meta.version}: ${meta.adventure_count} adventures in ${meta.chunk_count} chunks`);
  for (const a of [...withdrawn, ...newlyInactive]) {
    await announceUnavailable(live(a, { ratePackId: null, slot: null, reason: 'WITHDRAWN' }), { marker: inventoryKeys.withdrawnSubject });
  }
  let sandbox = await catalogStore.currentSandboxScope();
  // No snapshot yet, or one taken while production was empty: the sandboxes get this catalog now (tenants on an empty one follow it).
  if (!sandbox || ((await catalogStore.meta(sandbox))?.adventure_count ?? 0) === 0) {
    sandbox = await catalogStore.createSandboxSnapshot(new Date(), withReviews);
    progress(`sandbox snapshot ${sandbox} created`);
  }
  return { adventures: adventures.length, withdrawn: withdrawn.map((a) => a.slug), index_version: meta.version, sandbox_snapshot: sandbox };
}

/** Withdraws an adventure from production sale (it stays listed, not bookable), with its events in the same transaction. */
export async function withdrawAdventure(slug: string) {
  const a = await catalogStore.adventure(PROD, slug);
  if (!a) throw new CatalogFileError(`no adventure '${slug}' in production`);
  const events = await announceUnavailable(live(a, { ratePackId: null, slot: null, reason: 'WITHDRAWN' }), {
    marker: inventoryKeys.withdrawnSubject,
    change: catalogStore.adventurePuts(PROD, { ...a, active: false }),
  });
  await catalogStore.rebuildIndex(PROD);
  return { slug, active: false, events };
}

/** Closes one production slot to sale, with its events in the same transaction. */
export async function closeSlot(ratePackId: string, date: string, startTime: string | null) {
  const rp = await catalogStore.ratePack(PROD, ratePackId);
  if (!rp) throw new CatalogFileError(`no rate pack ${ratePackId} in production`);
  const slot = { date, start_time: startTime };
  const events = await announceUnavailable(live(rp.adventure, { ratePackId, slot, reason: 'SLOT_CLOSED' }), {
    marker: inventoryKeys.slotClosedSubject(ratePackId, slot),
    change: [inventoryStore.close(inventoryKeys.live, ratePackId, slot)],
  });
  return { rate_pack_id: ratePackId, date, start_time: startTime, closed: true, events };
}

function sellableIds(adventures: AdventureInput[]) {
  return new Map(adventures.filter((a) => a.active).map((a) => [a.id, a]));
}

/**
 * The weekly sandbox refresh: one new snapshot of production, then every
 * tenant is moved to it (their sandbox quotes, bookings, inventory and
 * idempotency keys live outside the snapshot and survive). A tenant
 * subscribed to adventure.unavailable in the sandbox gets one per adventure
 * that is no longer sellable for it, committed with its move (the move last,
 * so a run that fails half-way is redone whole, and the event ids, derived
 * from the catalog the tenant leaves, record nothing twice). The events are
 * at the tenant's sandbox clock, which judges its open quotes.
 */
export async function refreshSandboxes(progress: Progress = () => undefined, now = new Date()) {
  // Tenants without a pointer of their own browse the snapshot that was current until now.
  const previousCurrent = await catalogStore.currentSandboxScope();
  const snapshot = await catalogStore.createSandboxSnapshot(now, withReviews);
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
    try {
      const recorded: RecordedEvent[] = [];
      const tenant = { inventory: inventoryKeys.sandbox(partner.partner_id), env: 'test' as const, tenant: partner.partner_id };
      const recipients = gone.length ? await recipientsOf(tenant) : [];
      // On the tenant's sandbox clock: its open quotes are those not expired as of the clock, and the events carry its time.
      const at = recipients.length ? await tenantTime(partner.partner_id, 'test', now) : now;
      for (const a of gone) {
        const u: Unavailability = { ...tenant, adventure: a, ratePackId: null, slot: null, reason: 'SANDBOX_REFRESH' };
        recorded.push(...(await unavailableEvents(u, recipients, previous!, at)));
      }
      const r = await commitAnnouncement([], recorded, [fixedUnit('move', [accessStore.sandboxCatalogItem(partner.partner_id, snapshot, now)])]);
      if (r.failed) throw new Error(`the ${r.failed} was refused`);
      events += r.written.length;
      progress(`refreshed ${i + 1}/${partners.length} tenants (${partner.name})`);
    } catch (e) {
      // One tenant's failure does not stop the others; the next run retries it.
      failed.push(partner.partner_id);
      progress(`FAILED ${i + 1}/${partners.length} tenants (${partner.name}): ${(e as Error).message}`);
    }
  }
  return { snapshot, tenants: partners.length, events, failed };
}
