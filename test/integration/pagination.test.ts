import { describe, expect, it } from 'vitest';
import { api, newPartner, write } from './helpers';

async function partnerWithAudit(n: number) {
  const p = await newPartner();
  for (let i = 0; i < n; i++) await write('POST', '/api-keys', p.test_key, { member_id: p.member_id });
  return p;
}

describe('pagination', () => {
  it('walks a keyset list with no duplicates and no gaps', async () => {
    const p = await partnerWithAudit(7);
    const all = (await api('GET', '/audit-events?limit=100', { key: p.test_key })).body.data.map((e: { id: string }) => e.id);
    expect(all).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await api('GET', `/audit-events?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: p.test_key });
      expect(r.status).toBe(200);
      expect(r.body.meta.count).toBe(r.body.data.length);
      expect(r.body.meta.page_size).toBe(3);
      seen.push(...r.body.data.map((e: { id: string }) => e.id));
      cursor = r.body.meta.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
  });

  it('stays stable when rows are added between pages', async () => {
    const p = await partnerWithAudit(4);
    const first = await api('GET', '/audit-events?limit=2', { key: p.test_key });
    await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }); // newer than everything listed
    const second = await api('GET', `/audit-events?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, { key: p.test_key });
    const third = second.body.meta.next_cursor
      ? await api('GET', `/audit-events?limit=2&cursor=${encodeURIComponent(second.body.meta.next_cursor)}`, { key: p.test_key })
      : undefined;
    const ids = [...first.body.data, ...second.body.data, ...(third?.body.data ?? [])].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(4);
  });

  it('defaults to 25, clamps above 100, refuses below 1 or non-integers', async () => {
    const p = await newPartner();
    expect((await api('GET', '/audit-events', { key: p.test_key })).body.meta.page_size).toBe(25);
    expect((await api('GET', '/audit-events?limit=500', { key: p.test_key })).body.meta.page_size).toBe(100);
    for (const bad of ['0', '-1', 'abc', '1.5', '', '1e2', '0x10']) {
      const r = await api('GET', `/audit-events?limit=${bad}`, { key: p.test_key });
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('pagination.limit.invalid');
    }
  });

  it('refuses forged, corrupted, over-long, foreign and cross-endpoint cursors', async () => {
    const p = await partnerWithAudit(3);
    const other = await newPartner();
    const c = (await api('GET', '/audit-events?limit=1', { key: p.test_key })).body.meta.next_cursor as string;
    expect(c.length).toBeLessThanOrEqual(256);
    const get = (path: string, key = p.test_key) => api('GET', path, { key });

    const [payload, sig] = c.split('.');
    const tamperedPayload = Buffer.from(JSON.stringify({ e: 'listAuditEvents', k: '9999' })).toString('base64url');
    expect((await get(`/audit-events?cursor=${tamperedPayload}.${sig}`)).body.code).toBe('pagination.cursor.invalid');
    expect((await get(`/audit-events?cursor=${payload}.${'A'.repeat(22)}`)).body.code).toBe('pagination.cursor.invalid');
    expect((await get('/audit-events?cursor=garbage')).body.code).toBe('pagination.cursor.invalid');
    expect((await get(`/audit-events?cursor=${'a'.repeat(257)}`)).body.code).toBe('pagination.cursor.invalid');
    // Bound to the partner and the environment.
    expect((await get(`/audit-events?cursor=${encodeURIComponent(c)}`, other.test_key)).body.code).toBe('pagination.cursor.invalid');
    expect((await get(`/audit-events?cursor=${encodeURIComponent(c)}`, p.live_key)).body.code).toBe('pagination.cursor.invalid');
    // Bound to the endpoint.
    const wrong = await get(`/api-keys?cursor=${encodeURIComponent(c)}`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('pagination.cursor.wrong_endpoint');
    expect((await get(`/audit-events?cursor=${encodeURIComponent(c)}`)).status).toBe(200);
  });
});
