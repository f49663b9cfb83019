import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The unit project turns EMF off for handlers called directly; this file checks the EMF itself.
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { invoke, lambdaContext } = await import('../../infra/local/lambda');
const { captureFunctionLogs, summarizeMetrics } = await import('../../infra/local/logs');
const { recordWebhookAttempt } = await import('../../shared/kernel/metrics');
const { checkJob } = await import('../../shared/jobs/watchdog');

const dir = mkdtempSync(join(tmpdir(), 'ptbs-obs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const apiEvent = (method: string, path: string, headers: Record<string, string> = {}) => ({
  version: '2.0',
  routeKey: `${method} ${path}`,
  rawPath: path,
  rawQueryString: '',
  headers,
  requestContext: {
    requestId: `req-${Math.random().toString(36).slice(2)}`,
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 't' },
  },
  isBase64Encoded: false,
});

/** Runs `fn` with stdout and stderr of invocations captured in a file; returns its JSON lines. */
async function captured(fn: () => Promise<unknown>) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.jsonl`);
  const restore = captureFunctionLogs(file, { echo: 'stderr', echoLevel: 'SILENT' });
  try {
    await fn();
  } finally {
    await restore();
  }
  return {
    file,
    lines: readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>),
  };
}
const emf = (lines: Record<string, any>[]) => lines.filter((l) => l._aws);

describe('metrics in EMF', () => {
  it('a route handler writes one EMF document per request: count, latency and status class per route and in total', async () => {
    const event = apiEvent('GET', '/v1/health');
    const { lines } = await captured(() => invoke('functions/meta/health.ts', event, lambdaContext('GET /v1/health')));
    const docs = emf(lines);
    expect(docs).toHaveLength(1);
    const d = docs[0]!;
    expect(d._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'PartnerTravel',
        Dimensions: [['service', 'route'], ['service']],
        Metrics: [
          { Name: 'Requests', Unit: 'Count' },
          { Name: 'Latency', Unit: 'Milliseconds' },
          { Name: 'Error4xx', Unit: 'Count' },
          { Name: 'Error5xx', Unit: 'Count' },
        ],
      },
    ]);
    expect(d).toMatchObject({
      service: 'partner-travel-api',
      route: 'GET /v1/health',
      Requests: 1,
      Error4xx: 0,
      Error5xx: 0,
      status_class: '2xx',
      request_id: event.requestContext.requestId,
    });
    expect(d.Latency).toBeGreaterThanOrEqual(0);
    expect(typeof d._aws.Timestamp).toBe('number');
    // The request's log line carries the request id and the route, from the invocation's own keys.
    expect(lines.find((l) => l.message === 'request')).toMatchObject({ request_id: event.requestContext.requestId, route: 'GET /v1/health', status: 200 });
  });

  it('a failed authentication counts as a 4xx of its route and as an AuthFailure with its code as the reason', async () => {
    const { lines } = await captured(() => invoke('functions/meta/me.ts', apiEvent('GET', '/v1/me'), lambdaContext('GET /v1/me')));
    const docs = emf(lines);
    expect(docs.find((d) => d.AuthFailures)).toMatchObject({ reason: 'auth.api_key.missing', AuthFailures: 1 });
    expect(docs.find((d) => d.AuthFailures)!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'reason'], ['service']]);
    expect(docs.find((d) => d.Requests)).toMatchObject({ route: 'GET /v1/me', Error4xx: 1, Error5xx: 0, status_class: '4xx' });
  });

  it('webhook figures: a dead-lettered delivery closes with one dead letter; a delivered one has its dispatch delay', async () => {
    const out = await captured(async () => {
      const { withinInvocation } = await import('../../infra/local/lambda');
      // Written inside an invocation, as the webhook worker does.
      await withinInvocation('w1', async () => {
        recordWebhookAttempt('live', { delivered: false, closed: false });
        recordWebhookAttempt('live', { delivered: false, closed: true });
        recordWebhookAttempt('live', { delivered: true, closed: true, dispatchDelayMs: 250 });
      });
    });
    const s = await summarizeMetrics(out.file);
    const fig = (name: string) => s.metrics.find((m) => m.name === name && m.dimensions.environment === 'live')!;
    expect(fig('WebhookAttempts').sum).toBe(3);
    expect(fig('WebhookAttemptFailures').sum).toBe(2);
    expect(fig('WebhookDeliveriesClosed').sum).toBe(2);
    expect(fig('WebhookDeadLetters').sum).toBe(1);
    expect(fig('WebhookDispatchDelay')).toMatchObject({ samples: 1, max: 250 });
  });
});

describe('log context per invocation (the local runtime runs handlers concurrently in one process)', () => {
  it('every line of 40 concurrent invocations carries its own keys and request id', async () => {
    const { lines } = await captured(() =>
      Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const ctx = lambdaContext('fixture');
          return invoke('test/fixtures/log-context.ts', { tag: `t${i}`, waitMs: (i * 7) % 23 }, ctx).then((tag) => ({ tag, id: ctx.awsRequestId }));
        }),
      ),
    );
    const logs = lines.filter((l) => l.message === 'after the pause' || l.message === 'at the end');
    expect(logs).toHaveLength(80);
    for (const l of logs) expect(l.tag).toBe(l.expected_tag);
    // request_id is the invocation's (Lambda's request id for non-HTTP handlers): one per tag.
    const ids = new Map<string, Set<string>>();
    for (const l of logs) ids.set(l.tag, (ids.get(l.tag) ?? new Set()).add(l.request_id));
    expect([...ids.values()].every((s) => s.size === 1)).toBe(true);
    expect(new Set([...ids.values()].map((s) => [...s][0])).size).toBe(40);
    expect(emf(lines).filter((d) => d.QuotesCreated === 1)).toHaveLength(40);
  });

  it('outside an invocation nothing is captured (the runtime keeps its own output)', async () => {
    const { lines } = await captured(async () => {
      process.stdout.write('');
    });
    expect(lines).toEqual([]);
  });
});

describe('job watchdog', () => {
  const job = { id: 'j', schedule: 'cron(30 0 * * ? *)', handler: 'n/a', description: 'daily 00:30' };
  const at = (iso: string) => new Date(iso);

  it('expects a run at each scheduled time once its grace has passed, from the first sighting on', () => {
    const seen = { job: 'j', first_seen_at: '2026-11-20T12:00:00Z' };
    // Before 01:30 the 00:30 run is still within its grace: the due run is yesterday's, before the first sighting.
    expect(checkJob(job, seen, at('2026-11-21T01:00:00Z'))).toMatchObject({ overdue: false, due: '2026-11-20T00:30:00.000Z' });
    expect(checkJob(job, seen, at('2026-11-21T01:31:00Z'))).toMatchObject({ overdue: true, due: '2026-11-21T00:30:00.000Z' });
    const ran = { ...seen, last_success_scheduled_at: '2026-11-21T00:30:00Z' };
    expect(checkJob(job, ran, at('2026-11-21T23:00:00Z')).overdue).toBe(false);
    expect(checkJob(job, ran, at('2026-11-22T01:31:00Z')).overdue).toBe(true);
    // A failed run is no success.
    expect(checkJob(job, { ...seen, last_failed_at: '2026-11-21T00:31:00Z', last_error: 'boom' }, at('2026-11-21T02:00:00Z')).overdue).toBe(true);
  });

  it('works for monthly schedules and honours the job grace', () => {
    const monthly = { ...job, schedule: 'cron(0 2 1 * ? *)', graceMinutes: 180 };
    const rec = { job: 'j', first_seen_at: '2026-09-15T00:00:00Z', last_success_scheduled_at: '2026-10-01T02:00:00Z' };
    expect(checkJob(monthly, rec, at('2026-11-01T04:59:00Z')).overdue).toBe(false);
    expect(checkJob(monthly, rec, at('2026-11-01T05:00:00Z'))).toMatchObject({ overdue: true, due: '2026-11-01T02:00:00.000Z' });
    expect(checkJob(monthly, rec, at('2026-10-20T00:00:00Z')).overdue).toBe(false);
  });
});
