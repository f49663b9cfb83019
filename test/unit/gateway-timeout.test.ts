import { Agent, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApiGateway } from '../../infra/local/api-gateway';
import { INTEGRATION_TIMEOUT_MS } from '../../infra/local/gateway-quotas';
import { invocationObservers, loadHandler } from '../../infra/local/lambda';
import { closeServer, freePort } from '../../infra/local/services';
import { ROUTE_LIST } from '../../shared/routes';

// The health route's function, held by the fault injection as a slow function would be.
vi.hoisted(() => {
  process.env.FAULT_INJECTION = 'on';
});

/**
 * API Gateway's integration timeout on the local gateway: past it the client gets
 * 503 {"message":"Service Unavailable"} while the function goes on, and the answer
 * the function gives later is written nowhere. A gateway of its own, with the
 * timeout lowered from 30 s to 2 s, on the public health route (no store needed).
 */
const TIMEOUT_MS = 2000;
let server: Server;
let port: number;
// One connection, kept alive: a late answer written on it would be read as the next request's.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  port = await freePort();
  // Loaded before: a cold import on a busy machine must not take the in-time answer past the timeout.
  await loadHandler('functions/meta/health.ts');
  server = await startApiGateway(port, '127.0.0.1', { integrationTimeoutMs: TIMEOUT_MS });
});
afterAll(async () => {
  agent.destroy();
  await closeServer(server);
});

function get(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(`http://127.0.0.1:${port}${path}`, { headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the integration timeout', () => {
  it('an answer in time passes; past the timeout the client gets 503 at once, and the late answer never reaches the connection', async () => {
    const inTime = await get('/v1/health');
    expect(inTime.status).toBe(200);
    expect(JSON.parse(inTime.body)).toEqual({ status: 'ok' });
    expect(inTime.headers['apigw-requestid']).toBe(inTime.headers['x-request-id']);

    const ended = new Promise<void>((resolve) => {
      const seen = (entry: string) => {
        if (entry !== 'functions/meta/health.ts') return;
        invocationObservers.delete(seen);
        resolve();
      };
      invocationObservers.add(seen);
    });
    const late = await get('/v1/health', { 'x-fault-inject': `stall-after-commit=${TIMEOUT_MS * 3}` });
    expect(late.status).toBe(503);
    expect(late.headers['content-type']).toBe('application/json');
    expect(JSON.parse(late.body)).toEqual({ message: 'Service Unavailable' });
    expect(late.headers['apigw-requestid']).toBeTruthy();
    expect(late.headers['x-request-id']).toBeUndefined();

    // The function answers 200 four seconds later; on the same connection, the next answer is the next request's own.
    await ended;
    const next = await get('/v1/health');
    expect(next.status).toBe(200);
    expect(next.headers['apigw-requestid']).not.toBe(late.headers['apigw-requestid']);
  }, 30_000);

  it('no route can outlive it in AWS: every function timeout is under 30 s, so a slow function answers its own 500 first', () => {
    for (const route of ROUTE_LIST) expect((route.timeoutSeconds ?? 10) * 1000, route.id).toBeLessThan(INTEGRATION_TIMEOUT_MS);
  });
});
