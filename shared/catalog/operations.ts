import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../db';
import { ddb } from '../aws';
import { accessTableName, dataTableName } from '../config';
import { accessRepository } from '../access/repository';
import { accessKeys } from '../access/model';
import { eventPut } from '../events/record';
import { catalogRepository, inventoryKey, PROD, type CatalogScope } from './repository';
import { CatalogFile, type AdventureInput } from './schema';
import { slotKey } from './slots';
import { publishEvents } from '../webhooks/pipeline';

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];
export type Progress = (line: string) => void;

interface OpenQuote {
  id: string;
  partner_id: string;
  env: 'live' | 'test';
}

/** Unexpired, unbooked quotes on an adventure (optionally one slot) in one inventory. */
async function openQuotes(inventory: string, adventureId: string, slotPrefix?: string, now = new Date(), ratePackId?: string): Promise<OpenQuote[]> {
  const items = await queryAll({
    TableName: dataTableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: slotPrefix ? 'gsi2pk = :p AND begins_with(gsi2sk, :s)' : 'gsi2pk = :p',
    FilterExpression: `expires_at > :now AND attribute_not_exists(booking_number)${ratePackId ? ' AND rate_pack_id = :rp' : ''}`,
    ExpressionAttributeValues: { ':p': `QADV#${inventory}#${adventureId}`, ':now': now.toISOString(), ...(slotPrefix ? { ':s': slotPrefix } : {}), ...(ratePackId ? { ':rp': ratePackId } : {}) },
  });
  return items.map((i) => ({ id: i.id as string, partner_id: i.partner_id as string, env: i.env as 'live' | 'test' }));
}

/** One adventure.unavailable event per partner and environment concerned (holding open quotes). */
function unavailableEvents(quotes: OpenQuote[], data: Record<string, unknown>): TransactItem[] {
  const byTenant = new Map<string, OpenQuote[]>();
  for (const q of quotes) byTenant.set(`${q.partner_id}#${q.env}`, [...(byTenant.get(`${q.partner_id}#${q.env}`) ?? []), q]);
  // The payload names at most 100 quotes (quote_count has them all): an event stays far below DynamoDB's 400 KB.
  return [...byTenant.values()].map((qs) => ({
    Put: eventPut(qs[0]!.partner_id, qs[0]!.env, 'adventure.unavailable', { ...data, quote_ids: qs.slice(0, 100).map((q) => q.id), quote_count: qs.length }).put,
  }));
}

const refsOf = (items: TransactItem[]) => items.flatMap((i) => (i.Put?.Item?.type === 'event' ? [{ pk: i.Put.Item.pk as string, sk: i.Put.Item.sk as string }] : []));

async function transact(items: TransactItem[]) {
  // TransactWriteItems takes 100 items; beyond that the events go in follow-up transactions.
  for (let i = 0; i < items.length; i += 100) await ddb.send(new TransactWriteCommand({ TransactItems: items.slice(i, i + 100) }));
  await publishEvents(refsOf(items));
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
  const existing = await catalogRepository.allAdventures(PROD);
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
  await catalogRepository.putAdventures(PROD, [...adventures, ...withdrawn]);
  await catalogRepository.deleteItems(PROD, [...removedPacks.map((r) => `RP#${r.ratePackId}`), ...renamed.map((a) => `ADV#${a.slug}`)]);
  for (const r of removedPacks) {
    const quotes = await openQuotes('LIVE', r.adventure.id, undefined, new Date(), r.ratePackId);
    await transact(unavailableEvents(quotes, { adventure_id: r.adventure.id, adventure_slug: r.adventure.slug, rate_pack_id: r.ratePackId, date: null, start_time: null, reason: 'RATE_PACK_REMOVED' }));
  }
  const meta = await catalogRepository.rebuildIndex(PROD);
  progress(`index version ${meta.version}: ${meta.adventure_count} adventures in ${meta.chunk_count} chunks`);
  for (const a of [...withdrawn, ...newlyInactive]) {
    await transact(unavailableEvents(await openQuotes('LIVE', a.id), { adventure_id: a.id, adventure_slug: a.slug, rate_pack_id: null, date: null, start_time: null, reason: 'WITHDRAWN' }));
  }
  let sandbox = await catalogRepository.currentSandboxScope();
  if (!sandbox) {
    sandbox = await catalogRepository.createSandboxSnapshot();
    progress(`sandbox snapshot ${sandbox} created`);
  }
  return { adventures: adventures.length, withdrawn: withdrawn.map((a) => a.slug), index_version: meta.version, sandbox_snapshot: sandbox };
}

/** Withdraws an adventure from production sale (it stays listed, not bookable), with its events in the same transaction. */
export async function withdrawAdventure(slug: string) {
  const a = await catalogRepository.adventure(PROD, slug);
  if (!a) throw new CatalogFileError(`no adventure '${slug}' in production`);
  const off: AdventureInput = { ...a, active: false };
  const quotes = await openQuotes('LIVE', a.id);
  await transact([
    { Put: { TableName: dataTableName(), Item: { pk: 'CAT#PROD', sk: `ADV#${slug}`, type: 'adventure', adventure: off } } },
    ...off.rate_packs.map((rp) => ({
      Put: { TableName: dataTableName(), Item: { pk: 'CAT#PROD', sk: `RP#${rp.id}`, type: 'rate_pack', rate_pack: rp, adventure: { id: a.id, slug, title: a.title, active: false, city: a.city } } },
    })),
    ...unavailableEvents(quotes, { adventure_id: a.id, adventure_slug: slug, rate_pack_id: null, date: null, start_time: null, reason: 'WITHDRAWN' }),
  ]);
  await catalogRepository.rebuildIndex(PROD);
  return { slug, active: false, events: new Set(quotes.map((q) => `${q.partner_id}#${q.env}`)).size };
}

/** Closes one production slot to sale, with its events in the same transaction. */
export async function closeSlot(ratePackId: string, date: string, startTime: string | null) {
  const rp = await catalogRepository.ratePack(PROD, ratePackId);
  if (!rp) throw new CatalogFileError(`no rate pack ${ratePackId} in production`);
  const key = slotKey({ date, start_time: startTime });
  const quotes = await openQuotes('LIVE', rp.adventure.id, key, new Date(), ratePackId);
  await transact([
    { Update: { TableName: dataTableName(), Key: { pk: inventoryKey('LIVE', ratePackId), sk: key }, UpdateExpression: 'SET closed = :t', ExpressionAttributeValues: { ':t': true } } },
    ...unavailableEvents(quotes, { adventure_id: rp.adventure.id, adventure_slug: rp.adventure.slug, rate_pack_id: ratePackId, date, start_time: startTime, reason: 'SLOT_CLOSED' }),
  ]);
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
  const previousCurrent = await catalogRepository.currentSandboxScope();
  const snapshot = await catalogRepository.createSandboxSnapshot(now);
  progress(`snapshot ${snapshot} created from production`);
  const fresh = sellableIds(await catalogRepository.allAdventures(snapshot));
  const partners = await accessRepository.listPartners();
  const oldContent = new Map<CatalogScope, Map<string, AdventureInput>>();
  let events = 0;
  const failed: string[] = [];
  for (const [i, partner] of partners.entries()) {
    const previous = partner.sandbox_catalog ?? previousCurrent;
    let gone: AdventureInput[] = [];
    if (previous && previous !== snapshot) {
      if (!oldContent.has(previous)) oldContent.set(previous, sellableIds(await catalogRepository.allAdventures(previous)));
      gone = [...oldContent.get(previous)!.values()].filter((a) => !fresh.has(a.id));
    }
    const items: TransactItem[] = [
      {
        Update: {
          TableName: accessTableName(),
          Key: accessKeys.partner(partner.partner_id),
          UpdateExpression: 'SET sandbox_catalog = :s, sandbox_refreshed_at = :t',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':s': snapshot, ':t': now.toISOString() },
        },
      },
    ];
    for (const a of gone) {
      const ev = unavailableEvents(await openQuotes(`SBX#${partner.partner_id}`, a.id, undefined, now), {
        adventure_id: a.id,
        adventure_slug: a.slug,
        rate_pack_id: null,
        date: null,
        start_time: null,
        reason: 'SANDBOX_REFRESH',
      });
      events += ev.length;
      items.push(...ev);
    }
    try {
      await transact(items);
      progress(`refreshed ${i + 1}/${partners.length} tenants (${partner.name})`);
    } catch (e) {
      // One tenant's failure does not stop the others; the next run retries it.
      failed.push(partner.partner_id);
      progress(`FAILED ${i + 1}/${partners.length} tenants (${partner.name}): ${(e as Error).message}`);
    }
  }
  return { snapshot, tenants: partners.length, events, failed };
}
