import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { lambdaContext } from '../../infra/local/lambda';
import { route } from '../../shared/http/route';
import type { RouteDef } from '../../shared/http/route-def';
import type { ApiEvent } from '../../shared/http/types';
import { depthExceededAt } from '../../shared/kernel/json-depth';
import { logger } from '../../shared/kernel/logger';

const event = (method: string, path: string): ApiEvent =>
  ({
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: {},
    requestContext: { requestId: 'req-123', http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' } },
    isBase64Encoded: false,
  }) as unknown as ApiEvent;

const publicRoute = (extra: Partial<RouteDef> = {}): RouteDef => ({
  id: 'testRoute',
  method: 'GET',
  path: '/v1/test',
  handler: 'n/a',
  access: 'public',
  tag: 'Meta',
  summary: 'test',
  responses: { 200: { description: 'ok' } },
  write: false,
  ...extra,
});

describe('HTTP pipeline', () => {
  it('turns an unknown failure into a generic 500 that leaks neither message nor stack, and logs it with the request id', async () => {
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const handler = route(publicRoute(), async () => {
      throw new Error('db password is hunter2');
    });
    const res = await handler(event('GET', '/v1/test'), lambdaContext('t'));
    expect(res.statusCode).toBe(500);
    const body = JSON.parse(res.body as string);
    expect(body).toEqual({ code: 'internal.error', message: expect.any(String), request_id: 'req-123' });
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('at ');
    expect(res.headers['x-request-id']).toBe('req-123');
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });

  it('answers a deprecated route with Deprecation and Sunset headers (RFC 8594)', async () => {
    const handler = route(publicRoute({ deprecated: { since: '2026-06-01T00:00:00Z', sunset: '2026-12-01T00:00:00Z' } }), async () => ({ body: { ok: true } }));
    const res = await handler(event('GET', '/v1/test'), lambdaContext('t'));
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-06-01T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Tue, 01 Dec 2026 00:00:00 GMT');
    const plain = await route(publicRoute(), async () => ({ body: {} }))(event('GET', '/v1/test'), lambdaContext('t'));
    expect(plain.headers.deprecation).toBeUndefined();
  });
});

describe('bodies nested without bound (issue 40)', () => {
  const post = (body: string) => ({ ...event('POST', '/v1/test'), body }) as ApiEvent;
  const withBody = route(publicRoute({ method: 'POST', request: { body: z.strictObject({ a: z.unknown().optional() }) } }), async () => ({
    body: { ok: true },
  }));

  it('refuses 10 000 levels of arrays or objects with 400 request.body.too_deep naming the limit and where it was passed, not 500', async () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const res = await withBody(post(`${open!.repeat(10_000)}1${close!.repeat(10_000)}`), lambdaContext('t'));
      expect(res.statusCode, res.body as string).toBe(400);
      expect(JSON.parse(res.body as string)).toMatchObject({
        code: 'request.body.too_deep',
        message: expect.stringContaining('64 levels'),
        details: { max_depth: 64, position: 64 * open!.length },
      });
    }
  });

  it('takes 64 levels, and counts no bracket inside a string (escaped quotes included)', async () => {
    const ok = await withBody(post(`{"a":${'['.repeat(63)}${']'.repeat(63)}}`), lambdaContext('t'));
    expect(ok.statusCode, ok.body as string).toBe(200);
    const quoted = await withBody(post(JSON.stringify({ a: `\\"${'['.repeat(5000)}` })), lambdaContext('t'));
    expect(quoted.statusCode, quoted.body as string).toBe(200);
    expect(depthExceededAt(`{"a":"\\"[[[","b":${'['.repeat(63)}${']'.repeat(63)}}`)).toBe(-1);
    expect(depthExceededAt(`{"a":"\\\\",${'['.repeat(64)}`)).toBe(10 + 63);
  });
});
