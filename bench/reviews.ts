import { randomUUID } from 'node:crypto';
import { measure, type Stats } from './lib';

/**
 * GET /v1/reviews on one adventure holding `n` reviews (BENCH_REVIEWS,
 * default 10 000) of a sandbox tenant, page 1 and a deep keyset page (the
 * last full page of 25), against a bare Query of the same index partition in
 * the same run. Expects the local stack to be up in this process.
 */
export async function benchReviews(base: string, key: string, partnerId: string, runs: number, n = Number(process.env.BENCH_REVIEWS ?? 10_000)) {
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { ddb } = await import('../shared/kernel/aws');
  const { dataTable } = await import('../shared/db/client');
  const { catalogStore } = await import('../shared/catalog/store');
  const { reviewKeys } = await import('../shared/reviews/keys');
  const { loadReviews } = await import('../shared/reviews/seed');
  const { reviewSpaces } = await import('../shared/reviews/spaces');
  const { kindOf } = await import('../shared/reviews/rules');
  const { newPartnerReview } = await import('../shared/reviews/model');

  const spaces = await reviewSpaces({ partnerId, env: 'test', memberId: 'bench', role: 'PARTNER_ADMIN' });
  const [adventure] = await catalogStore.allAdventures(spaces.content);
  const start = Date.now() - n * 60_000;
  const reviews = Array.from({ length: n }, (_, i) =>
    newPartnerReview(
      {
        id: randomUUID(),
        space: spaces.own,
        reviewable_type: kindOf(adventure!.duration_minutes),
        reviewable_id: adventure!.id,
        rating: 1 + (i % 5),
        title: `Review ${i}`,
        comment: 'A generated review of a generated day out, long enough to be realistic in size.',
        author_name: 'Bench T.',
        photos: [],
        partner_id: partnerId,
        env: 'test',
      },
      new Date(start + i * 60_000).toISOString(),
    ),
  );
  let t0 = Date.now();
  await loadReviews(spaces.own, reviews);
  const loadSecs = (Date.now() - t0) / 1000;

  const get = (path: string) => async () => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const list = `/reviews?adventure=${adventure!.slug}`;
  // The deep page: follow the cursors (100 a page) to the last full page of 25.
  let cursor: string | null = null;
  let pages = 0;
  t0 = Date.now();
  for (let seen = 0; seen + 100 < n - 25; seen += 100, pages++) {
    const body = (await (
      await fetch(`${base}${list}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as {
      meta: { next_cursor: string | null };
    };
    cursor = body.meta.next_cursor;
  }
  const walkSecs = (Date.now() - t0) / 1000;
  const rows: Stats[] = [];
  const bare = await measure(`bare Query (gsi2, ${n} reviews, newest 26)`, runs, async () => {
    await ddb.send(
      new QueryCommand({
        TableName: dataTable.name(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p',
        ExpressionAttributeValues: { ':p': reviewKeys.reviewablePartition(spaces.own, adventure!.id) },
        ScanIndexForward: false,
        Limit: 26,
      }),
    );
  });
  rows.push(await measure('GET /reviews?adventure=..., page 1 (25)', runs, get(`${list}&limit=25`)));
  rows.push(
    await measure(
      `GET /reviews?adventure=..., keyset page after ${pages * 100} reviews (25)`,
      runs,
      get(`${list}&limit=25${cursor ? `&cursor=${cursor}` : ''}`),
    ),
  );
  rows.push(await measure('GET /reviews?adventure=...&min_rating=5, page 1 (25)', runs, get(`${list}&limit=25&min_rating=5`)));
  return {
    bare,
    rows,
    note: `Reviews: ${n} on one adventure loaded in ${loadSecs.toFixed(1)} s; walking ${pages} pages of 100 to the deep cursor took ${walkSecs.toFixed(1)} s.`,
  };
}
