import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { BODY_MAX_BYTES, EVENT_MAX_BYTES, GATEWAY_ANSWERS, HEAD_MAX_BYTES, RESPONSE_MAX_BYTES } from '../../infra/local/gateway-quotas';
import { addDays, localDate } from '../../shared/kernel/time';
import { packs } from './booking-helpers';
import { api, newPartner, requestLine, until, write } from './helpers';

/**
 * API Gateway's HTTP API quotas on the local gateway (infra/local/gateway-quotas.ts): at each
 * one, the request just under it reaches the function, and the one just over gets API
 * Gateway's own answer, in its shape, and never runs a function (no audit line, no log
 * line). An answer too large: the function ran, its answer is lost. The integration
 * timeout itself: test/unit/gateway-timeout.test.ts (no route's function outlives it).
 */

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request as exact bytes (fetch adds headers of its own): what the head quota counts is what is written. */
function raw(line: string, headers: [string, string][], body = ''): Promise<Raw> {
  const head = `${line}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    // Not half-closed: Node's server drops a request whose client ends first. The request asks to close after the answer.
    const socket = connect(inject('port'), '127.0.0.1', () => socket.write(head + body));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top, ...rest] = text.split('\r\n\r\n');
      const [status, ...lines] = top!.split('\r\n');
      const h = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(status!.split(' ')[1]), headers: h, body: rest.join('\r\n\r\n') });
    });
  });
}

/** The request ids of the partner's audit trail: every write a function ran leaves one, refused or not. */
async function audited(key: string): Promise<string[]> {
  const r = await api('GET', '/audit-events?limit=100', { key });
  expect(r.status, r.text).toBe(200);
  return (r.body.data as { request_id: string }[]).map((e) => e.request_id);
}

/**
 * Whether a function ran for the refused write: a write sent after it that did run is in the audit trail,
 * and the refused one is not (a function writes its line before its answer leaves).
 */
async function ranAfter(p: { test_key: string; member_id: string }, before: string[]) {
  const key = p.test_key;
  const probe = await write('POST', '/api-keys', key, { member_id: p.member_id });
  expect(probe.status, probe.text).toBe(201);
  const added = (await audited(key)).filter((id) => !before.includes(id));
  return added.filter((id) => id !== probe.headers.get('x-request-id'));
}

function expectGatewayText(r: { status: number; headers: Record<string, string | null>; body: string }, answer: (typeof GATEWAY_ANSWERS)['headTooLarge']) {
  expect(r.status).toBe(413);
  expect(r.headers['content-type']).toBe('text; charset=utf-8');
  expect(r.body).toBe(answer.body);
  // The front end refuses before any request id exists, and the service never saw the request.
  expect(r.headers['apigw-requestid']).toBeFalsy();
  expect(r.headers['x-request-id']).toBeFalsy();
}

describe('API Gateway quotas on the local gateway', () => {
  it(`request line and headers: ${HEAD_MAX_BYTES} bytes reach the function, one more is API Gateway's 413, before any function runs`, async () => {
    const p = await newPartner();
    const before = await audited(p.test_key);
    const body = JSON.stringify({ member_id: p.member_id });
    const line = 'POST /v1/api-keys HTTP/1.1';
    const send = (padding: number) => {
      const headers: [string, string][] = [
        ['host', '127.0.0.1'],
        ['authorization', `Bearer ${p.test_key}`],
        ['content-type', 'application/json'],
        ['idempotency-key', randomUUID()],
        ['content-length', String(Buffer.byteLength(body))],
        ['connection', 'close'],
        ['x-pad', ''],
      ];
      const counted = line.length + headers.reduce((n, [k, v]) => n + k.length + 2 + v.length, 0);
      headers[headers.length - 1]![1] = 'p'.repeat(padding - counted);
      return raw(line, headers, body);
    };
    const over = await send(HEAD_MAX_BYTES + 1);
    expectGatewayText(over, GATEWAY_ANSWERS.headTooLarge);
    const under = await send(HEAD_MAX_BYTES);
    expect(under.status, under.body).toBe(201);
    expect(under.headers['apigw-requestid']).toBe(under.headers['x-request-id']);
    // Only the one under the quota ran: the probe's line and its own are the trail's new lines.
    expect(await ranAfter(p, before)).toEqual([under.headers['x-request-id']]);
  });

  it(`body: one byte over ${BODY_MAX_BYTES} is API Gateway's 413 in plain text; ${BODY_MAX_BYTES} passes it and meets Lambda's 6 MB; no function runs`, async () => {
    const p = await newPartner();
    const before = await audited(p.test_key);
    const post = (bytes: number) =>
      api('POST', '/api-keys', {
        key: p.test_key,
        rawBody: 'x'.repeat(bytes),
        headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      });
    const over = await post(BODY_MAX_BYTES + 1);
    expectGatewayText({ status: over.status, headers: Object.fromEntries(over.headers), body: over.text }, GATEWAY_ANSWERS.bodyTooLarge);
    const at = await post(BODY_MAX_BYTES);
    expect(at.status).toBe(413);
    expect(at.body).toEqual({ message: 'Request Entity Too Large' });
    expect(await ranAfter(p, before)).toEqual([]);
  });

  it(`the event: a body that keeps it under ${EVENT_MAX_BYTES} bytes reaches the function, one that takes it over is refused; binary bodies count base64`, async () => {
    const p = await newPartner();
    const before = await audited(p.test_key);
    const post = (body: string | Uint8Array) =>
      api('POST', '/api-keys', { key: p.test_key, rawBody: body, headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json' } });
    // The event around a body adds well under 16 KB (the head is at most 10 KB).
    const margin = 16 * 1024;
    const ran: string[] = [];
    for (const [under, over] of [
      ['x'.repeat(EVENT_MAX_BYTES - margin), 'x'.repeat(EVENT_MAX_BYTES)],
      // Not UTF-8: the event carries it base64-encoded, 4/3 of its size.
      [new Uint8Array((EVENT_MAX_BYTES * 3) / 4 - margin).fill(0xff), new Uint8Array((EVENT_MAX_BYTES * 3) / 4).fill(0xff)],
    ] as const) {
      const reached = await post(under);
      // The function answers, in the service's shape: its own limit on bodies is far lower.
      expect(reached.status, reached.text).toBe(413);
      expect(reached.body.code).toBe('request.body.too_large');
      ran.push(reached.headers.get('x-request-id')!);
      const refused = await post(over);
      expect(refused.status).toBe(413);
      expect(refused.body).toEqual({ message: 'Request Entity Too Large' });
      expect(refused.headers.get('apigw-requestid')).toBeTruthy();
      expect(refused.headers.get('x-request-id')).toBeNull();
    }
    expect((await ranAfter(p, before)).sort()).toEqual(ran.sort());
  });

  it(`the answer: ${RESPONSE_MAX_BYTES} bytes of JSON reach the client, one more is API Gateway's 500, though the function ran`, async () => {
    const p = await newPartner();
    const me = (bytes: number) => api('GET', '/me', { key: p.test_key, headers: { 'x-fault-inject': `answer-bytes=${bytes}` } });
    const at = await me(RESPONSE_MAX_BYTES);
    expect(at.status, at.text.slice(0, 300)).toBe(200);
    expect(at.body.partner.id).toBe(p.partner_id);
    expect(at.text.length).toBeGreaterThan(RESPONSE_MAX_BYTES - 4096);
    const over = await me(RESPONSE_MAX_BYTES + 1);
    expect(over.status).toBe(500);
    expect(over.body).toEqual({ message: 'Internal Server Error' });
    const id = over.headers.get('apigw-requestid')!;
    expect(id).toBeTruthy();
    // The function answered 200; Lambda refused its answer.
    expect((await until(() => requestLine(id), Boolean))?.status).toBe(200);
  });

  it('a function past its own timeout (10 s) answers its 500 before the 30 s integration timeout; the write it committed stands and the retry gets it', async () => {
    const p = await newPartner();
    const P = await packs(p.test_key);
    const body = { rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 47), start_time: null, travelers: [{ age: 30 }] };
    const idempotencyKey = randomUUID();
    const slow = await write('POST', '/quotes', p.test_key, body, { idempotencyKey, headers: { 'x-fault-inject': 'stall-after-commit=11000' } });
    // middy answers at the function's deadline, in the service's shape, as in Lambda.
    expect(slow.status, slow.text).toBe(500);
    expect(slow.body.code).toBe('internal.error');
    const retry = await write('POST', '/quotes', p.test_key, body, { idempotencyKey });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await api('GET', '/quotes', { key: p.test_key })).body.data.map((q: { id: string }) => q.id)).toEqual([retry.body.id]);
  });

  it("a route's own longer timeout holds locally too: the 29 s settlement run may take 12 s", async () => {
    const p = await newPartner();
    const run = await write('POST', '/test-helpers/settlements/run', p.test_key, undefined, { headers: { 'x-fault-inject': 'stall-after-commit=12000' } });
    expect(run.status, run.text).toBe(200);
    expect(run.body.data).toEqual([]);
  });
});
