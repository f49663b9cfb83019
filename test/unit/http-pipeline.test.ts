import { describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../infra/local/lambda';
import { route } from '../../shared/http/route';
import type { RouteDef } from '../../shared/http/route-def';
import type { ApiEvent } from '../../shared/http/types';
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
