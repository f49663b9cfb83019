import { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startAsyncInvoker } from '../../infra/local/async-invoke';
import { runJob, verboseLevel } from '../../infra/local/cron';
import type { JobDef } from '../../shared/queues';

const job = (handler: string): JobDef => ({ id: 'webhookSweeper', schedule: 'cron(0/5 * * * ? *)', handler, description: 'test' });
// Lambda's asynchronous invocation, its waits scaled to milliseconds; no destination here (the SQS client sends nothing).
const invoker = (lines: string[]) =>
  startAsyncInvoker({
    sqs: new SQSClient({ region: 'us-east-1' }),
    settings: () => ({ functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:webhookSweeper', retryAttempts: 2, maxEventAgeSeconds: 3600 }),
    log: (l) => lines.push(l),
    waitScale: 0.0001,
  });

describe('the local cron runner is quiet by default', () => {
  it('prints nothing for a job that runs and succeeds at the default level (WARN), its start and end only at INFO', async () => {
    const lines: string[] = [];
    await runJob(job('test/fixtures/jobs/idle-job.ts'), new Date(), invoker(lines), (l) => lines.push(l), verboseLevel('WARN'));
    expect(lines).toEqual([]);
    await runJob(job('test/fixtures/jobs/idle-job.ts'), new Date(), invoker(lines), (l) => lines.push(l), verboseLevel('INFO'));
    expect(lines).toEqual(['[cron] webhookSweeper starts (cron(0/5 * * * ? *))', '[cron] webhookSweeper done']);
    expect(verboseLevel(undefined)).toBe(false);
    expect(verboseLevel('debug')).toBe(true);
  });

  it('always prints a failure: each attempt, and what became of the event', async () => {
    const lines: string[] = [];
    await runJob(job('test/fixtures/jobs/failing-job.ts'), new Date(), invoker(lines), (l) => lines.push(l), false);
    expect(lines).toEqual([
      '[lambda] webhookSweeper failed (attempt 1 of 3): table unreachable; tried again in 6 ms',
      '[lambda] webhookSweeper failed (attempt 2 of 3): table unreachable; tried again in 12 ms',
      '[lambda] webhookSweeper: asynchronous event discarded (RetriesExhausted, 3 attempt(s): table unreachable); the function has no on-failure destination',
    ]);
  });
});

vi.mock('../../shared/webhooks/sweep', () => ({ sweep: vi.fn(async () => ({ events: 0, deliveries: 0 })) }));
vi.mock('../../shared/clock/advance', () => ({ ADVANCE_STALE_MS: 120_000, resumeIdleAdvances: vi.fn(async () => 0) }));
// The job's run record (the watchdog's) is written to DynamoDB; here only the logging is under test.
vi.mock('../../shared/jobs/store', () => ({
  jobStore: { started: vi.fn(async () => ({})), succeeded: vi.fn(async () => ({})), failed: vi.fn(async () => ({})) },
}));

describe('the webhook sweeper job', () => {
  afterEach(() => vi.restoreAllMocks());

  it('says nothing at the default level (WARN) when nothing was overdue, and what it re-drove at INFO', async () => {
    const { logger } = await import('../../shared/kernel/logger');
    const { sweep } = await import('../../shared/webhooks/sweep');
    const { resumeIdleAdvances } = await import('../../shared/clock/advance');
    const { handler } = await import('../../functions/jobs/webhook-sweeper');
    const [debug, info, warn, error] = (['debug', 'info', 'warn', 'error'] as const).map((level) =>
      vi.spyOn(logger, level).mockImplementation(() => undefined),
    );
    const event = { time: new Date().toISOString() } as Parameters<typeof handler>[0];
    const context = {} as Parameters<typeof handler>[1];
    expect(await handler(event, context)).toEqual({ events: 0, deliveries: 0, advances: 0 });
    for (const c of [warn, error]) expect(c).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalledWith('re-driven', expect.anything());
    vi.mocked(sweep).mockResolvedValueOnce({ events: 1, deliveries: 2 });
    await handler(event, context);
    expect(info).toHaveBeenCalledWith('re-driven', { events: 1, deliveries: 2, advances: 0 });
    vi.mocked(resumeIdleAdvances).mockResolvedValueOnce(1);
    await handler(event, context);
    expect(info).toHaveBeenCalledWith('re-driven', { events: 0, deliveries: 0, advances: 1 });
    for (const c of [warn, error]) expect(c).not.toHaveBeenCalled();
    void debug;
  });
});
