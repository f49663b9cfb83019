import { accessStore } from '../access/store';
import { inventoryKeys } from '../catalog/keys';
import { dataTable } from '../db/client';
import { batchGet, clean, queryPages } from '../db/query';
import { eventKeys } from '../events/keys';
import { ENVS, type Env } from '../kernel/tenant';
import { reviewKeys } from '../reviews/keys';
import type { ReviewRecord } from '../reviews/model';
import { reviewStore } from '../reviews/store';

/**
 * GET /reviews?posted_by_you=true reads each partner's rows of its own reviews, which a review gets when it is
 * posted; this gives the reviews posted before the rows theirs (docs/operations/deploying.md): run once after
 * deploying that change (`npm run -s admin -- data:own-reviews`); the local stack runs it at every start.
 * Queries only, never a Scan: a partner's visible reviews are in its inventory space's index (gsi1), and one that
 * is not visible was moderated, which recorded a review.moderated event in the partner's events (kept for good).
 * Idempotent: a review that has its row is left alone.
 */
export async function addOwnReviewRows(progress: (line: string) => void = () => undefined): Promise<{ reviews: number }> {
  let added = 0;
  for (const p of await accessStore.listPartners()) {
    for (const env of ENVS) {
      const space = env === 'live' ? inventoryKeys.live : inventoryKeys.sandbox(p.partner_id);
      const ids = new Set([...(await visibleIds(p.partner_id, space)), ...(await moderatedIds(p.partner_id, env))]);
      const all = [...ids];
      for (let i = 0; i < all.length; i += 100) {
        const records = (
          await batchGet(
            dataTable,
            all.slice(i, i + 100).map((id) => reviewKeys.review(id, space)),
          )
        ).map((item) => clean<ReviewRecord>(item));
        for (const r of records) if (r.partner_id === p.partner_id && r.env === env && (await reviewStore.addOwnRow(r))) added++;
      }
    }
    progress(`partner ${p.partner_id}: ${added} review row(s) added so far`);
  }
  return { reviews: added };
}

/** The partner's visible reviews in its inventory space (LIVE holds every partner's: its own are filtered). */
async function visibleIds(partnerId: string, space: string): Promise<string[]> {
  const ids: string[] = [];
  const pages = queryPages(dataTable, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    FilterExpression: 'partner_id = :me',
    ExpressionAttributeValues: { ':p': reviewKeys.spacePartition(space), ':me': partnerId },
    ProjectionExpression: 'id',
  });
  for await (const page of pages) ids.push(...page.map((i) => i.id as string));
  return ids;
}

/** The reviews of the partner's review.moderated events: every review that is not visible was moderated. */
async function moderatedIds(partnerId: string, env: Env): Promise<string[]> {
  const ids: string[] = [];
  const pages = queryPages(dataTable, {
    KeyConditionExpression: 'pk = :p',
    FilterExpression: '#e.#t = :t',
    ExpressionAttributeNames: { '#e': 'event', '#t': 'type', '#d': 'data' },
    ExpressionAttributeValues: { ':p': eventKeys.partition(partnerId, env), ':t': 'review.moderated' },
    ProjectionExpression: '#e.#d.review_id',
  });
  for await (const page of pages) ids.push(...page.map((i) => (i.event as { data: { review_id: string } }).data.review_id));
  return ids;
}
