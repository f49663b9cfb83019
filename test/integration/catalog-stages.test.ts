import { freePort } from '../../infra/local/services';
// The local runtime's invoke store, before any AWS SDK call: the SDK reads it, and its first caller decides its kind.
import '../../infra/local/lambda';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { countStages, type StageCounter } from '../../bench/stages';
import { newPartner, stackRuntime } from './helpers';

/**
 * DynamoDB round trips of a catalog page, counted as the bench counts them (bench/run.ts): every call of the
 * service's client, and its sequential stages (a call that starts while none is in flight starts a stage). The
 * list function runs in this process as a container of its own (the API Gateway emulation and the function, on
 * the test stack's DynamoDB), so its counts are this file's alone.
 */
let gateway: Server;
let base: string;
let recheckMs: number;
let counter: StageCounter;
let key: string;
const logDir = mkdtempSync(join(tmpdir(), 'ptbs-catalog-stages-'));
let restoreLogs: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  Object.assign(process.env, { ...stackRuntime().env, POWERTOOLS_LOG_LEVEL: 'ERROR' });
  // The function's log lines go to a file, as the stack's do (its terminal shows WARN and above).
  restoreLogs = (await import('../../infra/local/logs')).captureFunctionLogs(join(logDir, 'functions.log'), { echo: 'stderr', echoLevel: 'WARN' });
  counter = countStages((await import('../../shared/kernel/aws')).dynamo, { log: true });
  ({ PROD_RECHECK_MS: recheckMs } = await import('../../shared/catalog/service'));
  const { startApiGateway } = await import('../../infra/local/api-gateway');
  const port = await freePort();
  gateway = await startApiGateway(port);
  base = `http://127.0.0.1:${port}/v1`;
  key = (await newPartner()).live_key;
});
afterAll(async () => {
  await new Promise<void>((r) => (gateway ? gateway.close(() => r()) : r()));
  await restoreLogs();
  rmSync(logDir, { recursive: true, force: true });
});

/** A GET through the in-process gateway, with the calls and stages it made. */
async function counted(path: string): Promise<{ status: number; body: any; calls: string[]; stages: number }> {
  const [c, s] = [counter.calls, counter.stages];
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.json();
  return { status: res.status, body, calls: counter.log!.slice(c).sort(), stages: counter.stages - s };
}

const PAGES = [
  ['popularity', '/adventures?limit=25'],
  ['price', '/adventures?sort=price&limit=25'],
  ['-price', '/adventures?sort=-price&limit=25'],
  ['distance', '/adventures?sort=distance&lat=31.63&lng=-7.99&limit=25'],
  ['q + date, price', `/adventures?q=camel&date=${new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10)}&sort=price&limit=25`],
  ['city + price range', '/adventures?city=Marrakech&min_price=200&max_price=900&limit=25'],
  // 100 adventures' ratings in two spaces: more keys than one BatchGetItem takes.
  ['100 a page', '/adventures?limit=100'],
] as const;

/**
 * The container's clock stopped at the current instant (only Date: timers run): what it holds stays as old as it
 * was, so a request the test makes within the bound is within it however slow the machine; `later` moves it on.
 */
function stopClock(): { later: (ms: number) => void } {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
  return { later: (ms) => vi.setSystemTime(now + ms) };
}
afterEach(() => {
  vi.useRealTimers();
});

describe('a warm catalog page is one DynamoDB stage: the authentication reads', () => {
  let auth: string[];

  it('measures the authentication stage of a known key (GET /v1/me)', async () => {
    await counted('/me');
    const me = await counted('/me');
    expect(me.status).toBe(200);
    expect(me.stages).toBe(1);
    auth = me.calls;
    expect(auth.length).toBeGreaterThan(0);
  });

  it.each(PAGES)('%s: the first page loads what it needs, the next ones read only the authentication', async (_name, path) => {
    stopClock();
    const first = await counted(path);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) {
      const warm = await counted(path);
      expect([warm.body.data, warm.body.meta.total_results]).toEqual([first.body.data, first.body.meta.total_results]);
      expect({ calls: warm.calls, stages: warm.stages }).toEqual({ calls: auth, stages: 1 });
    }
  });

  it('a cursor page (offset 25) is warm too, once its adventures were shown', async () => {
    stopClock();
    const cursor = encodeURIComponent((await counted('/adventures?limit=25')).body.meta.next_cursor);
    await counted(`/adventures?limit=25&cursor=${cursor}`);
    const warm = await counted(`/adventures?limit=25&cursor=${cursor}`);
    expect(warm.body.meta.page_number).toBe(2);
    expect({ calls: warm.calls, stages: warm.stages }).toEqual({ calls: auth, stages: 1 });
  });

  it('rechecks the catalog version and the ratings once the staleness bound has passed, once for requests at the same time', async () => {
    const path = '/adventures?limit=25';
    const clock = stopClock();
    // Past the bound of whatever the container read before: this one reads META and the page's ratings again.
    clock.later(recheckMs);
    expect((await counted(path)).calls).toContain('GetItem CAT#PROD');
    clock.later(2 * recheckMs - 1);
    expect((await counted(path)).stages).toBe(1);
    clock.later(2 * recheckMs);
    const from = counter.calls;
    const due = await Promise.all(Array.from({ length: 4 }, () => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })));
    expect(due.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // META (the catalog version) read again, by one of the four; the ratings too: more than the authentication.
    expect(counter.log!.slice(from).filter((c) => c === 'GetItem CAT#PROD')).toHaveLength(1);
    expect(counter.calls - from).toBeGreaterThan(4 * auth.length);
    const again = await counted(path);
    expect({ calls: again.calls, stages: again.stages }).toEqual({ calls: auth, stages: 1 });
  });
});
