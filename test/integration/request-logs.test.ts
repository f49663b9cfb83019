import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { signParts } from '../../shared/platform/signature';
import type { RequestLogEntry } from '../../shared/request-logs/entry';
import { idempotencyKeyHash, marker } from '../../shared/request-logs/marker';
import { bookingBody, packs, quoteFor } from './booking-helpers';
import { api, newPartner, secretOf, write } from './helpers';
import { entriesOf } from './marker-requests';

type Entry = RequestLogEntry;
type Page = { data: Entry[]; meta: { next_cursor: string | null } };

const list = (key: string, query = '') => api<Page>('GET', `/request-logs?limit=100${query}`, { key });

/** The log is written off the request's path (a few seconds later): poll it, bounded, as a partner would, until `ok` holds. */
async function entries(key: string, ok: (page: Entry[]) => boolean): Promise<Entry[]> {
  const end = Date.now() + 20_000;
  for (;;) {
    const r = await list(key);
    expect(r.status, r.text).toBe(200);
    if (ok(r.body.data) || Date.now() > end) return r.body.data;
    await new Promise((done) => setTimeout(done, 250));
  }
}
const holding =
  (...want: string[]) =>
  (page: Entry[]) =>
    want.every((id) => page.some((e) => e.request_id === id));

const ids = (page: Entry[]) => page.map((e) => e.request_id);

describe('request log (GET /request-logs)', () => {
  it('lists every request of the partner and environment, newest first, with errors redacted, filters, paging and isolation', async () => {
    const p = await newPartner();
    const other = await newPartner();
    const me = await api('GET', '/me', { key: p.test_key, headers: { 'user-agent': 'bank-integration/2.1' } });
    expect(me.status).toBe(200);
    const P = await packs(p.test_key);
    const quote = await quoteFor(p.test_key, P.FLEXIBLE, addDays(localDate(new Date()), 10));
    // A 422 whose body carries a traveler's name, an e-mail and a payment confirmation.
    const confirmation = `eyJhbGciOiJFUzI1NiIsImtpZCI6ImJhbmstMSJ9.${Buffer.from(JSON.stringify({ quote_id: quote.id })).toString('base64url')}.c2lnbmF0dXJl`;
    const idem = randomUUID();
    const body = bookingBody(quote, confirmation, {
      travelers: [
        { first_name: 'Zineb', last_name: 'Benkirane' },
        { first_name: 'Youssef', last_name: 'Benkirane' },
      ],
    });
    const failed = await write('POST', '/bookings', p.test_key, body, { idempotencyKey: idem });
    expect(failed.status, failed.text).toBe(422);
    const replay = await write('POST', '/bookings', p.test_key, body, { idempotencyKey: idem });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // A live write with a bad signature: 401 auth.signature.invalid, in the live log.
    const badKey = randomUUID();
    const bad = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: JSON.stringify({ rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 10), start_time: null, travelers: [{ age: 30 }] }),
      headers: {
        'content-type': 'application/json',
        'idempotency-key': badKey,
        'x-signature-version': '2',
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-signature': 'ab'.repeat(32),
      },
    });
    expect(bad.status, bad.text).toBe(401);
    const [meId, failedId, replayId, badId] = [me, failed, replay, bad].map((r) => r.headers.get('x-request-id')!) as [string, string, string, string];
    const test = await entries(p.test_key, (page) => holding(meId, failedId)(page) && page.some((e) => e.replay_of === failedId));
    const replayEntryId = test.find((e) => e.replay_of === failedId)?.request_id as string;
    expect(replayEntryId).toBeDefined();
    const of = (id: string) => test.find((e) => e.request_id === id)!;
    // Newest first.
    expect(test.map((e) => e.occurred_at)).toEqual([...test.map((e) => e.occurred_at)].sort().reverse());
    expect(of(meId)).toMatchObject({
      method: 'GET',
      path: '/v1/me',
      status: 200,
      error_code: null,
      via: 'api_key',
      key_id: p.test_key_id,
      member_id: p.member_id,
      source_ip: '127.0.0.1',
      user_agent: 'bank-integration/2.1',
      request_body: null,
      response_body: null,
      signature: null,
    });
    expect(of(meId).latency_ms).toBeGreaterThanOrEqual(0);
    const f = of(failedId);
    expect(f).toMatchObject({
      method: 'POST',
      path: '/v1/bookings',
      status: 422,
      error_code: failed.body.code,
      idempotency_key: idempotencyKeyHash(idem),
      idempotent_replayed: false,
    });
    expect(f.request_body?.bytes).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(JSON.parse(f.request_body!.content!)).toMatchObject({
      quote_id: quote.id,
      payment_confirmation: marker('secret', confirmation),
      customer_reference: marker('personal', body.customer_reference),
      contact: {
        first_name: marker('personal', body.contact.first_name),
        last_name: marker('personal', body.contact.last_name),
        email: marker('personal', body.contact.email),
        phone: marker('personal', body.contact.phone),
      },
      travelers: [
        { first_name: marker('personal', 'Zineb'), last_name: marker('personal', 'Benkirane') },
        { first_name: marker('personal', 'Youssef'), last_name: marker('personal', 'Benkirane') },
      ],
    });
    expect(JSON.parse(f.response_body!.content!)).toMatchObject({ code: failed.body.code, request_id: failedId });
    // The name, the e-mail and the confirmation appear nowhere in what the API answers.
    const text = JSON.stringify(test);
    for (const secret of ['Zineb', 'Youssef', 'Benkirane', 'Amina', body.contact.email, confirmation, confirmation.split('.')[1]!])
      expect(text).not.toContain(secret);
    // The replay: its own request id, the original's as replay_of (Idempotent-Replayed: true).
    expect(replayId).toBe(failedId);
    expect(of(replayEntryId)).toMatchObject({ idempotent_replayed: true, replay_of: failedId, idempotency_key: idempotencyKeyHash(idem), status: 422 });

    // The 401 is in the live log, with what the service signed.
    const live = await entries(p.live_key, holding(badId));
    const b = live.find((e) => e.request_id === badId)!;
    expect(b).toMatchObject({ status: 401, error_code: 'auth.signature.invalid', key_id: p.live_key_id, path: '/v1/quotes' });
    // The caller's 401 has the key as sent; the entry its marker, in its place in string_to_sign.
    expect(bad.body.details).toMatchObject({ idempotency_key: badKey });
    expect(b.signature).toMatchObject({
      signature_version: 2,
      method: 'POST',
      path: '/v1/quotes',
      idempotency_key: marker('personal', badKey),
      body_sha256: bad.body.details.body_sha256,
      string_to_sign: bad.body.details.string_to_sign.replace(badKey, marker('personal', badKey)),
    });
    expect(ids(test)).not.toContain(badId);

    // Filters.
    expect(ids((await list(p.test_key, '&status=422')).body.data).sort()).toEqual([failedId, replayEntryId].sort());
    const fourxx = (await list(p.test_key, '&status=4xx')).body.data;
    expect(ids(fourxx)).toContain(failedId);
    expect(fourxx.every((e) => e.status >= 400 && e.status < 500)).toBe(true);
    expect(ids((await list(p.test_key, `&code=${failed.body.code}`)).body.data).sort()).toEqual([failedId, replayEntryId].sort());
    expect(ids((await list(p.test_key, '&path=/v1/me')).body.data)).toEqual([meId]);
    expect(ids((await list(p.test_key, `&request_id=${failedId}`)).body.data)).toEqual([failedId]);
    // The filter takes the key and hashes it; the hash an entry shows is taken as well.
    expect(ids((await list(p.test_key, `&idempotency_key=${idem}`)).body.data).sort()).toEqual([failedId, replayEntryId].sort());
    expect(ids((await list(p.test_key, `&idempotency_key=${idempotencyKeyHash(idem)}`)).body.data).sort()).toEqual([failedId, replayEntryId].sort());
    expect(ids((await list(p.test_key, `&key=${p.test_key_id}`)).body.data)).toContain(meId);
    expect((await list(p.test_key, `&key=${p.live_key_id}`)).body.data).toEqual([]);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await list(p.test_key, `&occurred_from=${later}`)).body.data).toEqual([]);
    expect(ids((await list(p.test_key, `&occurred_to=${of(meId).occurred_at}`)).body.data)).toEqual([meId]);

    // Keyset paging: one entry a page, the same entries in the same order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: Page } = await api<Page>(
        'GET',
        `/request-logs?limit=1&status=4xx${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: p.test_key },
      );
      expect(r.status).toBe(200);
      paged.push(...ids(r.body.data));
      cursor = r.body.meta.next_cursor;
    } while (cursor);
    expect(paged).toEqual(ids(fourxx));

    // One entry by its id; unknown ids and another partner's are 404.
    const one = await api<Entry>('GET', `/request-logs/${failedId}`, { key: p.test_key });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual(f);
    for (const [key, id] of [
      [other.test_key, failedId],
      [p.live_key, failedId],
      [p.test_key, randomUUID()],
    ] as const) {
      const r = await api('GET', `/request-logs/${id}`, { key });
      expect(r.status, r.text).toBe(404);
      expect(r.body.code).toBe('resource.not_found');
    }
    // Another partner sees none of these requests.
    const theirs = (await list(other.test_key)).body.data;
    expect(ids(theirs).filter((id) => [meId, failedId, replayEntryId, badId].includes(id))).toEqual([]);
  });

  it('shows the body as received beside its re-serialized content: its length and SHA-256, which the service signed (issue 40, 4)', async () => {
    const p = await newPartner();
    const P = await packs(p.test_key);
    // Signed compact, sent with a space after each colon: the mistake of a client that re-serializes after signing.
    const compact = JSON.stringify({ rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 10), start_time: null, travelers: [{ age: 30 }] });
    const sent = compact.replaceAll('":', '": ');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const [idem, timestamp] = [randomUUID(), String(Math.floor(Date.now() / 1000))];
    const signature = signParts(secretOf(p.live_key), { version: '2', timestamp, method: 'POST', pathWithQuery: '/v1/quotes', idempotencyKey: idem }, compact);
    const r = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: sent,
      headers: { 'content-type': 'application/json', 'idempotency-key': idem, 'x-signature-version': '2', 'x-timestamp': timestamp, 'x-signature': signature },
    });
    expect(r.status, r.text).toBe(401);
    expect(r.body.details).toMatchObject({ body_length: Buffer.byteLength(sent), body_sha256: sha(sent) });
    const [e] = await entriesOf([{ id: r.headers.get('x-request-id')!, key: p.live_key, what: 'the spaced body', answer: r.text }]);
    // Beside the content: the bytes received, the very hash the service signed.
    expect(e!.request_body).toMatchObject({ bytes: Buffer.byteLength(sent), sha256: sha(sent), content_form: 'reserialized_redacted', truncated: false });
    expect(e!.signature).toMatchObject({ body_length: Buffer.byteLength(sent), body_sha256: sha(sent) });
    // The content is the body re-serialized: here all public, and compact again, so its hash is the signer's, not the received one.
    expect(e!.request_body!.content).toBe(compact);
    expect(sha(e!.request_body!.content!)).not.toBe(e!.request_body!.sha256);
    expect(e!.response_body).toMatchObject({ bytes: Buffer.byteLength(r.text), sha256: sha(r.text), content_form: 'reserialized_redacted' });
  });

  it('logs the 404 of a test helper asked with a live key (the key is yours), not a path no operation has, as request-logs.md says', async () => {
    const p = await newPartner();
    const helper = await api('GET', '/test-helpers/clock', { key: p.live_key });
    expect(helper.status).toBe(404);
    expect(helper.body.code).toBe('request.route.not_found');
    const nowhere = await api('GET', '/no-such-operation', { key: p.live_key });
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.code).toBe('request.route.not_found');
    const marker = (await api('GET', '/me', { key: p.live_key })).headers.get('x-request-id')!;
    const logged = await entries(p.live_key, holding(helper.body.request_id, marker));
    expect(logged.find((e) => e.request_id === helper.body.request_id)).toMatchObject({
      status: 404,
      error_code: 'request.route.not_found',
      path: '/v1/test-helpers/clock',
    });
    expect(ids(logged)).not.toContain(nowhere.body.request_id);
  });

  it('refuses unknown filters and filter values with a 400 in the error shape', async () => {
    const p = await newPartner();
    for (const [query, code] of [
      ['status=abc', 'validation.field.invalid'],
      ['status=6xx', 'validation.field.invalid'],
      ['code=no.such.code', 'validation.field.invalid'],
      ['path=bookings', 'validation.field.invalid'],
      ['key=sk_test_x', 'validation.field.invalid'],
      ['occurred_from=yesterday', 'validation.field.invalid'],
      // Not a request id: neither API Gateway's (15 base64url characters and =) nor a lowercase UUID.
      ['request_id=anything', 'validation.field.invalid'],
      [`request_id=${randomUUID().toUpperCase()}`, 'validation.field.invalid'],
      ['request_id=ALt0lgP-IAMEZPA', 'validation.field.invalid'],
      ['request_id=sk_test_abc%40bank.example', 'validation.field.invalid'],
      // Not an Idempotency-Key: blank, or longer than 255 characters (the spec's rule).
      ['idempotency_key=%20%20%20', 'validation.field.invalid'],
      [`idempotency_key=${'k'.repeat(256)}`, 'validation.field.invalid'],
      ['verb=GET', 'validation.parameter.unknown'],
    ]) {
      const r = await api('GET', `/request-logs?${query}`, { key: p.test_key });
      expect(r.status, `${query}: ${r.text}`).toBe(400);
      expect(r.body).toMatchObject({ code, request_id: expect.any(String), message: expect.any(String) });
    }
    const one = await api('GET', '/request-logs/not-a-request-id', { key: p.test_key });
    expect(one.status, one.text).toBe(400);
    expect(one.body.code).toBe('validation.field.invalid');
    // Both shapes of a request id, and any non-blank key up to 255 characters, are taken.
    for (const query of [
      'request_id=ALt0lgP-IAMEZPA%3D',
      `request_id=${randomUUID()}`,
      `idempotency_key=${'k'.repeat(255)}`,
      'idempotency_key=%20order%2042',
    ]) {
      const r = await api('GET', `/request-logs?${query}`, { key: p.test_key });
      expect(r.status, `${query}: ${r.text}`).toBe(200);
    }
  });
});
