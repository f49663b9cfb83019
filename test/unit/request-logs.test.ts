import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jsonPatternMatcher } from '../../infra/local/log-subscriptions';
import { bookingRoutes } from '../../shared/bookings/routes';
import { errorBody } from '../../shared/http/respond';
import type { ErrorDetailsInput } from '../../shared/http/schemas';
import { ApiError } from '../../shared/kernel/errors';
import { signatureInvalid } from '../../shared/platform/signature';
import { REQUEST_LOG_FILTER_PATTERN, type RequestLogEntry } from '../../shared/request-logs/entry';
import { redactDiagnostics, redactErrorBody } from '../../shared/request-logs/error-body';
import { decodeLogs, requestLogLines } from '../../shared/request-logs/ingest';
import { idempotencyKeyHash, jsonText, MARKER_PATTERN, marker, Withheld } from '../../shared/request-logs/marker';
import { bodyExcerpt, MAX_BODY_CHARS, redactPath, redactQuery, redactValue } from '../../shared/request-logs/redact';
import { requestLogView } from '../../shared/request-logs/views';
import { reviewRoutes } from '../../shared/reviews/routes';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
// Shaped like keys, built here so that no key-like literal stands in the repository.
const fakeKey = (env: string) => ['sk', env, 'abcdefghijkl', '0123456789abcdef'.repeat(2)].join('_');

const booking = {
  quote_id: '0b8e6f4a-2c1d-4e3f-9a8b-7c6d5e4f3a2b',
  partner_reference: 'ORD-2026-11-0042',
  customer_reference: 'CUST-88412',
  contact: { first_name: 'Amina', last_name: 'El Idrissi', email: 'amina@example.com', phone: '+212 600 000 000' },
  travelers: [{ first_name: 'Amina', last_name: 'El Idrissi' }],
  payment_confirmation: 'eyJhbGciOiJFUzI1NiJ9.eyJxdW90ZV9pZCI6IjEifQ.c2ln',
};
const createBooking = bookingRoutes.createBooking;

describe('request log redaction by data class', () => {
  it("keeps a public field's value of its form, and replaces every other value by its class, length and hash", () => {
    const w = new Withheld();
    const out = redactValue(booking, createBooking.request.body, w) as typeof booking;
    expect(marker('personal', 'Amina')).toBe(`[personal 5 bytes sha256:${sha('Amina').slice(0, 8)}]`);
    expect(out).toEqual({
      quote_id: booking.quote_id,
      partner_reference: marker('personal', 'ORD-2026-11-0042'),
      customer_reference: marker('personal', 'CUST-88412'),
      contact: {
        first_name: marker('personal', 'Amina'),
        last_name: marker('personal', 'El Idrissi'),
        email: marker('personal', 'amina@example.com'),
        phone: marker('personal', '+212 600 000 000'),
      },
      travelers: [{ first_name: marker('personal', 'Amina'), last_name: marker('personal', 'El Idrissi') }],
      payment_confirmation: marker('secret', booking.payment_confirmation),
    });
    // A public field keeps only a value of its own form: an e-mail where the quote id goes is withheld.
    expect(redactValue({ quote_id: 'amina@example.com' }, createBooking.request.body, w)).toEqual({ quote_id: marker('unknown', 'amina@example.com') });
  });

  it('withholds fields the route does not declare, names included, whatever their spelling', () => {
    const variants = {
      firstName: 'Zineb',
      lastName: 'Benkirane',
      phoneNumber: '+212 611 111 111',
      customerReference: 'CUST-1',
      apiSecret: 's3cr3t-value',
      client_secret: 'client-secret-value',
      passwd: 'hunter2-value',
      note: `abc_${fakeKey('test')}`,
      nested: { deep: [{ first_name: 'Zineb' }] },
    };
    const out = jsonText(redactValue(variants, createBooking.request.body, new Withheld()));
    for (const [name, value] of Object.entries(variants)) {
      expect(out).not.toContain(name);
      expect(out).toContain(marker('unknown', name));
      if (typeof value === 'string') expect(out).toContain(marker('unknown', value));
    }
    for (const leaked of ['Zineb', 'Benkirane', 'CUST-1', 's3cr3t', 'sk_test_', 'hunter2']) expect(out).not.toContain(leaked);
  });

  it("keeps a path's literal segments and its public parameters of valid form, and withholds any other segment", () => {
    const w = new Withheld();
    const key = fakeKey('test');
    expect(redactPath(`/v1/reviews/${key}`, reviewRoutes.getReview, w)).toBe(`/v1/reviews/${marker('unknown', key)}`);
    expect(redactPath('/v1/reviews/0b8e6f4a-2c1d-4e3f-9a8b-7c6d5e4f3a2b', reviewRoutes.getReview, w)).toBe('/v1/reviews/0b8e6f4a-2c1d-4e3f-9a8b-7c6d5e4f3a2b');
    expect(redactPath('/v1/bookings/PTB-7K3M-Q9XD/cancel', bookingRoutes.cancelBooking, w)).toBe('/v1/bookings/PTB-7K3M-Q9XD/cancel');
    // A segment decoded before it is judged and hashed: the value the service read.
    expect(redactPath('/v1/bookings/amina%40example.com/cancel', bookingRoutes.cancelBooking, w)).toBe(
      `/v1/bookings/${marker('unknown', 'amina@example.com')}/cancel`,
    );
  });

  it('keeps a query value only when its parameter is public and the value valid; personal, invalid and unknown ones are withheld', () => {
    const w = new Withheld();
    expect(
      redactQuery(
        'customer_reference=CUST-1&limit=5&status=CONFIRMED,CANCELLED&first_name=Amina&created_from=yesterday&q',
        bookingRoutes.listBookings.request.query,
        w,
      ),
    ).toBe(
      `customer_reference=${marker('personal', 'CUST-1')}&limit=5&status=CONFIRMED,CANCELLED&${marker('unknown', 'first_name')}=${marker('unknown', 'Amina')}&created_from=${marker('unknown', 'yesterday')}&${marker('unknown', 'q')}`,
    );
    // Decoded as the service reads it ('+' is a space, %40 an @).
    expect(redactQuery('customer_reference=Amina+El%40x', bookingRoutes.listBookings.request.query, w)).toBe(
      `customer_reference=${marker('personal', 'Amina El@x')}`,
    );
  });

  it('redacts the signature diagnostics as the path and query, hides the Idempotency-Key, and rebuilds string_to_sign from the redacted parts', () => {
    const w = new Withheld();
    const parts = {
      version: '2',
      timestamp: '1795856043',
      method: 'POST',
      pathWithQuery: '/v1/bookings?customer_reference=CUST-77&first_name=Amina',
      idempotencyKey: 'amina@example.com',
    } as const;
    const error = signatureInvalid(parts, Buffer.from('{"a":1}'));
    // The caller's 401 keeps them whole (the caller sent them): only the log redacts.
    expect(error.details).toMatchObject({ path: parts.pathWithQuery, idempotency_key: 'amina@example.com' });
    const out = redactDiagnostics(error.details!, createBooking, w);
    const path = `/v1/bookings?${marker('unknown', 'customer_reference')}=${marker('unknown', 'CUST-77')}&${marker('unknown', 'first_name')}=${marker('unknown', 'Amina')}`;
    expect(out).toEqual({
      signature_version: 2,
      timestamp: '1795856043',
      method: 'POST',
      path,
      idempotency_key: marker('personal', 'amina@example.com'),
      body_length: 7,
      body_sha256: sha('{"a":1}'),
      string_to_sign: `v2\n1795856043\nPOST\n${path}\n${marker('personal', 'amina@example.com')}\n${sha('{"a":1}')}`,
    });
  });

  it("keeps the service's sentences of an error, masks the values they quote, and withholds details it does not know", () => {
    const w = new Withheld();
    redactValue({ firstName: 'Zineb', contact: { email: 'zineb@example.com' } }, createBooking.request.body, w);
    const error = new ApiError('validation.field.invalid', 'The body has a field this route does not accept: "firstName".', {
      errors: [
        { field: 'firstName', location: 'body', message: 'The body has a field this route does not accept: "firstName".', expected: 'no unknown fields' },
      ],
      email: 'ZINEB@example.com',
      surprise: `abc_${fakeKey('live')}`,
    } as ErrorDetailsInput);
    const out = redactErrorBody(errorBody(error, 'r-1'), createBooking, w) as Record<string, any>;
    const name = marker('unknown', 'firstName');
    expect(out).toEqual({
      code: 'validation.field.invalid',
      message: `The body has a field this route does not accept: "${name}".`,
      request_id: 'r-1',
      details: {
        errors: [{ field: name, location: 'body', message: `The body has a field this route does not accept: "${name}".`, expected: 'no unknown fields' }],
        email: marker('personal', 'ZINEB@example.com'),
        [marker('unknown', 'surprise')]: marker('unknown', `abc_${fakeKey('live')}`),
      },
    });
  });

  it('keeps a body as its received length and SHA-256 beside its re-serialized, redacted content, and never the content of a body it cannot read', () => {
    const sent = JSON.stringify(booking, null, 2);
    const small = bodyExcerpt(Buffer.from(sent), (p) => redactValue(p, createBooking.request.body, new Withheld()));
    expect(small).toMatchObject({ bytes: Buffer.byteLength(sent), sha256: sha(sent), content_form: 'reserialized_redacted', truncated: false });
    expect(small!.content).not.toContain('Amina');
    expect(JSON.parse(small!.content!).quote_id).toBe(booking.quote_id);
    const large = bodyExcerpt(JSON.stringify({ notes: 'x'.repeat(50_000) }), (p) => p);
    expect(large).toMatchObject({ truncated: true, bytes: 50_000 + 12 });
    expect(large!.content).toHaveLength(MAX_BODY_CHARS);
    expect(bodyExcerpt('first_name=Amina', (p) => p)).toEqual({
      content: null,
      content_form: null,
      bytes: 16,
      sha256: sha('first_name=Amina'),
      truncated: false,
      omitted: expect.stringContaining('not JSON'),
    });
    expect(bodyExcerpt('', (p) => p)).toBeNull();
  });

  it('walks a body only as deep as its schema: a value nested 20 000 levels is one marker, measured without recursion', () => {
    const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    // Parsed here: a body this deep is refused (request.body.too_deep) and its excerpt omitted before anything parses it.
    expect(redactValue(JSON.parse(`{"quote_id":${nested}}`), createBooking.request.body, new Withheld())).toEqual({ quote_id: marker('unknown', nested) });
    const within = `${'['.repeat(60)}${']'.repeat(60)}`;
    const out = bodyExcerpt(`{"quote_id":${within}}`, (p) => redactValue(p, createBooking.request.body, new Withheld()));
    expect(JSON.parse(out!.content!)).toEqual({ quote_id: marker('unknown', within) });
    expect(jsonText(JSON.parse('[1,{"a":"x\\"","b":[null,{}]},-0,1e300]'))).toBe(JSON.stringify([1, { a: 'x"', b: [null, {}] }, -0, 1e300]));
    expect(MARKER_PATTERN.test(marker('secret', 'x'))).toBe(true);
  });

  it('answers an entry written before keys were hashed with its key hashed, and its bodies without the hash they lack', () => {
    const old = {
      request_id: 'r1',
      occurred_at: '2026-11-24T09:14:03.512Z',
      environment: 'test',
      method: 'POST',
      path: '/v1/quotes',
      query: null,
      status: 400,
      error_code: 'validation.field.invalid',
      latency_ms: 9,
      idempotency_key: 'amina@example.com',
      idempotent_replayed: false,
      replay_of: null,
      via: 'api_key',
      key_id: 'abcdefghijkl',
      member_id: 'm1',
      source_ip: null,
      user_agent: null,
      signature: null,
      request_body: { content: '{}', bytes: 2, truncated: false },
      response_body: null,
    } as unknown as RequestLogEntry;
    const view = requestLogView(old);
    expect(view.idempotency_key).toBe(idempotencyKeyHash('amina@example.com'));
    expect(view.request_body).toEqual({ content: '{}', content_form: null, bytes: 2, sha256: null, truncated: false });
    expect(requestLogView({ ...old, idempotency_key: idempotencyKeyHash('k') }).idempotency_key).toBe(idempotencyKeyHash('k'));
  });

  it('stores an Idempotency-Key as its full SHA-256, whose start is its marker', () => {
    expect(idempotencyKeyHash('5f0c8a6e-3b2d-4e71-a9c4-8d1e2f3a4b5c')).toBe(`sha256:${sha('5f0c8a6e-3b2d-4e71-a9c4-8d1e2f3a4b5c')}`);
    expect(marker('personal', '5f0c8a6e-3b2d-4e71-a9c4-8d1e2f3a4b5c')).toContain(sha('5f0c8a6e-3b2d-4e71-a9c4-8d1e2f3a4b5c').slice(0, 8));
  });
});

describe('request log bodies nested without bound (issue 40)', () => {
  const nested = (levels: number, open: string, close: string) => `${open.repeat(levels)}1${close.repeat(levels)}`;
  const redact = (p: unknown) => redactValue(p, createBooking.request.body, new Withheld());

  it('keeps the size and hash of a body nested 10 000 levels deep and says why it keeps nothing else, without parsing it', () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const body = nested(10_000, open!, close!);
      expect(bodyExcerpt(Buffer.from(body), redact)).toEqual({
        content: null,
        content_form: null,
        bytes: body.length,
        sha256: sha(body),
        truncated: false,
        omitted: expect.stringContaining('64 levels'),
      });
    }
    // 64 levels are a body like any other: kept, redacted.
    const kept = bodyExcerpt(nested(64, '{"first_name":"Amina","a":', '}'), redact)!.content;
    expect(kept).toMatch(MARKER_PATTERN);
    expect(kept).not.toContain('Amina');
  });
});

describe('request log delivery', () => {
  it("matches the subscription filter's pattern on the marker only", () => {
    const matches = jsonPatternMatcher(REQUEST_LOG_FILTER_PATTERN);
    expect(matches({ request_log: 1, status: 200 })).toBe(true);
    expect(matches({ message: 'request', status: 200 })).toBe(false);
    expect(matches({ request_log: 0 })).toBe(false);
    expect(() => jsonPatternMatcher('ERROR')).toThrow(/does not read the filter pattern/);
  });

  it('reads the awslogs event (base64 of gzip of JSON) and keeps the valid request log lines only', () => {
    const line = {
      request_log: 1,
      partner_id: 'p1',
      request_id: 'r1',
      occurred_at: '2026-11-24T09:14:03.512Z',
      environment: 'test',
      method: 'GET',
      path: '/v1/me',
      query: null,
      status: 200,
      error_code: null,
      latency_ms: 12,
      idempotency_key: null,
      idempotent_replayed: false,
      replay_of: null,
      via: 'api_key',
      key_id: 'abcdefghijkl',
      member_id: 'm1',
      source_ip: '198.51.100.24',
      user_agent: 'curl/8.5.0',
      signature: null,
      request_body: null,
      response_body: null,
    };
    const data = {
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: 'PartnerTravelService-ApigetMeLogs',
      logStream: 's',
      subscriptionFilters: ['request-log'],
      logEvents: [
        { id: '1', timestamp: 1, message: JSON.stringify(line) },
        { id: '2', timestamp: 2, message: JSON.stringify({ request_log: 1, partner_id: 'p1' }) },
        { id: '3', timestamp: 3, message: 'not json' },
      ],
    };
    const decoded = decodeLogs({ awslogs: { data: gzipSync(JSON.stringify(data)).toString('base64') } });
    expect(decoded.logGroup).toBe(data.logGroup);
    expect(requestLogLines(decoded)).toEqual([line]);
  });
});
