import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { jsonPatternMatcher } from '../../infra/local/log-subscriptions';
import { REQUEST_LOG_FILTER_PATTERN } from '../../shared/request-logs/entry';
import { decodeLogs, requestLogLines } from '../../shared/request-logs/ingest';
import { bodyExcerpt, MAX_BODY_CHARS, redact, redactQuery } from '../../shared/request-logs/redact';

const booking = {
  quote_id: '0b8e6f4a-2c1d-4e3f-9a8b-7c6d5e4f3a2b',
  partner_reference: 'ORD-2026-11-0042',
  customer_reference: 'CUST-88412',
  contact: { first_name: 'Amina', last_name: 'El Idrissi', email: 'amina@example.com', phone: '+212 600 000 000' },
  travelers: [{ first_name: 'Amina', last_name: 'El Idrissi' }],
  payment_confirmation: 'eyJhbGciOiJFUzI1NiJ9.eyJxdW90ZV9pZCI6IjEifQ.c2ln',
};

describe('request log redaction', () => {
  it('replaces names, e-mails, phones, payment confirmations and customer references wherever they sit, and keeps the rest', () => {
    const out = redact(booking) as typeof booking;
    expect(out).toEqual({
      quote_id: booking.quote_id,
      partner_reference: 'ORD-2026-11-0042',
      customer_reference: '[redacted]',
      contact: { first_name: '[redacted]', last_name: '[redacted]', email: '[redacted]', phone: '[redacted]' },
      travelers: [{ first_name: '[redacted]', last_name: '[redacted]' }],
      payment_confirmation: '[redacted]',
    });
  });

  it('replaces secrets and tokens by name, and scrubs what looks like one in any string', () => {
    // Shaped like keys, built here so that no key-like literal stands in the repository.
    const fakeKey = (env: string) => ['sk', env, 'abcdefghijkl', '0123456789abcdef'.repeat(2)].join('_');
    const out = JSON.stringify(
      redact({
        signing_secret: 'whsec_abc',
        key: fakeKey('live'),
        access_token: 'x',
        message: `sent by amina@example.com with ${fakeKey('test')}, token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig and whsec_ZmFrZQ==`,
      }),
    );
    for (const leaked of ['whsec_abc', 'sk_live_', 'sk_test_', 'amina@example.com', 'eyJ', 'whsec_ZmFrZQ']) expect(out).not.toContain(leaked);
    expect(out).toContain('[redacted email]');
  });

  it('redacts the values of sensitive query parameters and scrubs the others', () => {
    expect(redactQuery('customer_reference=CUST-1&limit=5&contact%5Femail=a%40b.co&q=amina@example.com')).toBe(
      'customer_reference=[redacted]&limit=5&contact%5Femail=[redacted email]&q=[redacted email]',
    );
  });

  it('keeps a JSON body redacted, cuts a large one (and says so), and keeps nothing of a body that is not JSON', () => {
    const small = bodyExcerpt(Buffer.from(JSON.stringify(booking)));
    expect(small).toMatchObject({ bytes: Buffer.byteLength(JSON.stringify(booking)), truncated: false });
    expect(small!.content).not.toContain('Amina');
    const large = bodyExcerpt(JSON.stringify({ notes: 'x'.repeat(50_000) }));
    expect(large).toMatchObject({ truncated: true, bytes: 50_000 + 12 });
    expect(large!.content).toHaveLength(MAX_BODY_CHARS);
    expect(bodyExcerpt('first_name=Amina')).toEqual({ content: null, bytes: 16, truncated: false, omitted: expect.stringContaining('not JSON') });
    expect(bodyExcerpt('')).toBeNull();
  });
});

describe('request log bodies nested without bound (issue 40)', () => {
  const nested = (levels: number, open: string, close: string) => `${open.repeat(levels)}1${close.repeat(levels)}`;

  it('keeps the size of a body nested 10 000 levels deep and says why it keeps nothing else, without walking it', () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const body = nested(10_000, open!, close!);
      expect(bodyExcerpt(Buffer.from(body))).toEqual({ content: null, bytes: body.length, truncated: false, omitted: expect.stringContaining('64 levels') });
    }
    // 64 levels are a body like any other: kept, redacted.
    expect(bodyExcerpt(nested(64, '{"first_name":"Amina","a":', '}'))!.content).toContain('[redacted]');
  });

  it('stops redacting at 64 levels: a value nested deeper (built in memory, never parsed) is replaced, not walked', () => {
    let deep: unknown = { first_name: 'Amina' };
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(redact(deep))).toBe(`${'['.repeat(64)}"[redacted]"${']'.repeat(64)}`);
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
