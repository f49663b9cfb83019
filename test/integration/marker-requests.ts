import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { RequestLogEntry } from '../../shared/request-logs/entry';
import { api, type newPartner, write } from './helpers';

type Partner = Awaited<ReturnType<typeof newPartner>>;

/** A value no entry should ever hold: easy to find in any text, in any case. */
const newMarker = (n: number) => `mrk${String(n).padStart(2, '0')}x${randomBytes(6).toString('hex')}`;

export interface SentMarkers {
  /** Every value the requests carried that the log must not keep. */
  markers: string[];
  /** Each request's id, the key of its environment, and the answer the caller got. */
  requests: { id: string; key: string; what: string; answer: string }[];
}

/**
 * The 18 error requests of issue 40's marker test, as a partner sends them: an API key in the path, signature
 * diagnostics with raw query values, camelCase and other variants of field names, a key glued to a word, free
 * text in Idempotency-Key, and a review's title, comment and author_name. Each carries values found nowhere else.
 */
export async function sendMarkerRequests(p: Partner): Promise<SentMarkers> {
  const markers: string[] = [];
  const m = () => {
    const v = newMarker(markers.length + 1);
    markers.push(v);
    return v;
  };
  const requests: SentMarkers['requests'] = [];
  const sent = async (what: string, key: string, r: Promise<{ status: number; text: string; headers: Headers }>) => {
    const res = await r;
    expect(res.status, `${what}: ${res.text}`).toBeGreaterThanOrEqual(400);
    requests.push({ id: res.headers.get('x-request-id')!, key, what, answer: res.text });
  };
  // A live write whose signature does not match: its 401 carries what the service signed, path and query included.
  const badlySigned = (method: string, pathWithQuery: string, body: unknown, idempotencyKey: string, version?: '2') =>
    api(method, pathWithQuery, {
      key: p.live_key,
      rawBody: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
        ...(version ? { 'x-signature-version': version } : {}),
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-signature': 'ab'.repeat(32),
      },
    });
  markers.push(p.test_key, p.live_key, p.test_key.split('_')[3]!, p.live_key.split('_')[3]!);
  const review = { booking_number: 'PTB-AAAA-BBBB', reviewable_type: 'EXPERIENCE', rating: 5 };

  await sent('a full API key in the path', p.test_key, api('GET', `/reviews/${p.test_key}`, { key: p.test_key }));
  await sent('a live key in the path', p.live_key, api('GET', `/bookings/${p.live_key}`, { key: p.live_key }));
  await sent('a key glued to a word in the path', p.test_key, api('GET', `/quotes/abc_${p.test_key}`, { key: p.test_key }));
  await sent(
    'signature diagnostics with raw query values (version 2)',
    p.live_key,
    badlySigned('POST', `/bookings?customer_reference=${m()}&first_name=${m()}`, { quote_id: randomUUID() }, randomUUID(), '2'),
  );
  await sent(
    'signature diagnostics with raw query values (version 1)',
    p.live_key,
    badlySigned('POST', `/quotes?customer_reference=${m()}&first_name=${m()}`, { travelers: [{ age: 30 }] }, randomUUID()),
  );
  await sent(
    'camelCase field names',
    p.test_key,
    write('POST', '/bookings', p.test_key, { firstName: m(), lastName: m(), phoneNumber: m(), customerReference: m() }),
  );
  await sent('apiSecret', p.test_key, write('POST', '/quotes', p.test_key, { rate_pack_id: randomUUID(), travelers: [{ age: 30 }], apiSecret: m() }));
  await sent(
    'client_secret',
    p.test_key,
    write('POST', '/webhooks', p.test_key, { url: 'https://hooks.example.com/in', event_types: ['booking.confirmed'], client_secret: m() }),
  );
  await sent(
    'passwd',
    p.test_key,
    write('POST', '/team/members', p.test_key, { email: `${m()}@bank.example`, role: 'VIEWER', first_name: m(), last_name: m(), passwd: m() }),
  );
  await sent(
    'a key glued to a word in a partner reference',
    p.test_key,
    write('POST', '/bookings', p.test_key, {
      quote_id: randomUUID(),
      partner_reference: `abc_${p.test_key.slice(0, 40)}`,
      customer_reference: m(),
      contact: { first_name: m(), last_name: m(), email: `${m()}@example.com`, phone: '+212 600 000 000' },
      travelers: [{ first_name: m(), last_name: m() }],
      payment_confirmation: `eyJhbGciOiJFUzI1NiJ9.${m()}.c2ln`,
    }),
  );
  markers.push(`abc_${p.test_key.slice(0, 40)}`);
  await sent('a key glued to a word in a query value', p.test_key, api('GET', `/bookings?limit=0&customer_reference=xyz_${p.test_key}`, { key: p.test_key }));
  await sent(
    'an e-mail in Idempotency-Key',
    p.test_key,
    write('POST', '/quotes', p.test_key, { rate_pack_id: randomUUID(), travelers: [] }, { idempotencyKey: `${m()}.amina@example.com` }),
  );
  await sent(
    'a customer id in Idempotency-Key',
    p.test_key,
    write('POST', '/bookings', p.test_key, { quote_id: 'not-a-quote' }, { idempotencyKey: `customer-${m()}-88412` }),
  );
  await sent(
    "a review's title, comment and author_name",
    p.test_key,
    write('POST', '/reviews', p.test_key, { ...review, title: m(), comment: `A fine day out, ${m()}`, author_name: m() }),
  );
  await sent("a review's new title", p.test_key, write('PUT', `/reviews/${randomUUID()}`, p.test_key, { title: m() }));
  await sent("a review's new comment", p.test_key, write('PUT', `/reviews/${randomUUID()}`, p.test_key, { comment: `Lovely guide called ${m()}` }));
  await sent(
    'an author_name with a refused rating',
    p.test_key,
    write('POST', '/reviews', p.test_key, { ...review, rating: 9, comment: `Ten words or so ${m()}`, author_name: `Amina ${m()}` }),
  );
  await sent(
    'a cancellation reason and an e-mail in Idempotency-Key, badly signed',
    p.live_key,
    badlySigned('POST', '/bookings/PTB-AAAA-BBBB/cancel', { reason: `Customer ${m()} fell ill` }, `${m()}@example.com`, '2'),
  );
  expect(requests).toHaveLength(18);
  return { markers, requests };
}

/** Each request's entry, through GET /request-logs/{id} (an entry appears a few seconds after its request: polled, bounded). */
export async function entriesOf(requests: SentMarkers['requests']): Promise<RequestLogEntry[]> {
  const out: RequestLogEntry[] = [];
  for (const r of requests) {
    const end = Date.now() + 30_000;
    for (;;) {
      const got = await api<RequestLogEntry>('GET', `/request-logs/${r.id}`, { key: r.key });
      if (got.status === 200) {
        out.push(got.body);
        break;
      }
      expect(got.status, `${r.what}: ${got.text}`).toBe(404);
      expect(Date.now(), `${r.what}: no entry after 30 s`).toBeLessThan(end);
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  return out;
}

/** The markers a text holds, in any case. */
export const markersIn = (text: string, markers: string[]) => markers.filter((v) => text.toLowerCase().includes(v.toLowerCase()));
