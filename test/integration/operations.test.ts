import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobKeys } from '../../shared/jobs/keys';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, livePaymentKey, packs, paidClaims, quoteFor, signPayment } from './booking-helpers';
import { admin, api, memberWithRole, newPartner, testDb, write } from './helpers';

interface Figure {
  name: string;
  dimensions: Record<string, string>;
  samples: number;
  sum: number;
  max: number;
}
interface Summary {
  metrics: Figure[];
  queues: { queue: string; visible: number; in_flight: number; dlq_visible: number }[] | null;
}

/** What an operator sees locally: the figures the alarms watch, read back from the EMF output. */
async function summary(args: string[] = []): Promise<Summary> {
  const r = await admin(['metrics:summary', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json as Summary;
}
const figure = (s: Summary, name: string, dims: Record<string, string>) =>
  s.metrics.find(
    (m) =>
      m.name === name && Object.entries(dims).every(([k, v]) => m.dimensions[k] === v) && Object.keys(m.dimensions).length === Object.keys(dims).length + 1,
  );
const sum = (s: Summary, name: string, dims: Record<string, string>) => figure(s, name, dims)?.sum ?? 0;

const until = async <T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 50_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
};

let receiver: Server;
let base: string;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(503);
      res.end('down');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://localhost:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

describe('the figures the alarms watch, read locally from the EMF output', () => {
  it('a dead-lettered live delivery raises WebhookDeadLetters and WebhookDeliveriesClosed (the dead-letter rate) and the DLQ depth', async () => {
    const before = await summary();
    const p = await newPartner();
    const ep = await write('POST', '/webhooks', p.live_key, { url: `${base}/always-down`, event_types: ['booking.confirmed'] });
    expect(ep.status, ep.text).toBe(201);
    const jwk = await livePaymentKey(p.partner_id);
    const quote = await quoteFor(p.live_key, (await packs(p.live_key)).FLEXIBLE, addDays(localDate(new Date()), 10));
    const booked = await write('POST', '/bookings', p.live_key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
    expect(booked.status, booked.text).toBe(201);

    const failed = await until(
      async () => (await api('GET', '/webhooks/deliveries?status=FAILED', { key: p.live_key })).body.data,
      (d) => d.length === 1,
    );
    expect(failed[0]).toMatchObject({ status: 'FAILED', attempts: 6, last_http_status: 503 });
    const after = await until(
      () => summary(),
      (s) => sum(s, 'WebhookDeadLetters', { environment: 'live' }) > sum(before, 'WebhookDeadLetters', { environment: 'live' }),
      10_000,
    );
    const live = { environment: 'live' };
    expect(sum(after, 'WebhookDeadLetters', live) - sum(before, 'WebhookDeadLetters', live)).toBeGreaterThanOrEqual(1);
    expect(sum(after, 'WebhookDeliveriesClosed', live) - sum(before, 'WebhookDeliveriesClosed', live)).toBeGreaterThanOrEqual(1);
    expect(sum(after, 'WebhookAttempts', live) - sum(before, 'WebhookAttempts', live)).toBeGreaterThanOrEqual(6);
    expect(sum(after, 'WebhookAttemptFailures', live) - sum(before, 'WebhookAttemptFailures', live)).toBeGreaterThanOrEqual(6);
    expect(sum(after, 'BookingsConfirmed', live) - sum(before, 'BookingsConfirmed', live)).toBeGreaterThanOrEqual(1);
    // What the DLQ alarm watches: a message on the webhook DLQ.
    expect(after.queues?.find((q) => q.queue === 'webhooks')?.dlq_visible).toBeGreaterThanOrEqual(1);

    // The operator replays it (the receiver is still down: a new delivery, attempted again).
    const replay = await admin(['webhooks:replay', '--delivery', failed[0].id, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json).toMatchObject({ replay_of: failed[0].id, partner_id: p.partner_id, environment: 'live', status: 'PENDING' });
  });

  it('a failing job raises JobFailures; a job with no successful run since its schedule raises JobOverdue', async () => {
    const start = new Date().toISOString();
    // A run scheduled in the future completes nothing: the job refuses it, as a failure.
    const run = await admin(['job:run', '--job', 'completeBookings', '--time', '2099-01-02T00:30:00Z', '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Only travel dates before today');
    const failed = await until(
      () => summary(['--since', start]),
      (s) => sum(s, 'JobFailures', { job: 'completeBookings' }) >= 1,
      10_000,
    );
    expect(figure(failed, 'JobFailures', { job: 'completeBookings' })).toMatchObject({ sum: 1, samples: 1 });
    expect(figure(failed, 'JobRuns', { job: 'completeBookings' })).toMatchObject({ sum: 1 });

    // The job has been known for three days and never succeeded: the watchdog reports it overdue.
    const { ddb, accessTable } = testDb();
    await ddb.send(
      new UpdateCommand({
        TableName: accessTable,
        Key: jobKeys.run('completeBookings'),
        UpdateExpression: 'SET first_seen_at = :t REMOVE last_success_scheduled_at',
        ExpressionAttributeValues: { ':t': new Date(Date.now() - 3 * 86_400_000).toISOString() },
      }),
    );
    const watchdog = await admin(['job:run', '--job', 'jobWatchdog', '--json']);
    expect(watchdog.code, watchdog.stderr).toBe(0);
    expect(watchdog.json.result.overdue).toContain('completeBookings');
    const overdue = await until(
      () => summary(['--since', start]),
      (s) => (figure(s, 'JobOverdue', { job: 'completeBookings' })?.max ?? 0) === 1,
      10_000,
    );
    expect(figure(overdue, 'JobOverdue', { job: 'completeBookings' })?.max).toBe(1);
    expect(figure(overdue, 'JobOverdue', { job: 'jobWatchdog' })?.max).toBe(0);
    const status = await admin(['jobs:status', '--json']);
    expect(status.json.data.find((c: { job: string }) => c.job === 'completeBookings')).toMatchObject({
      overdue: true,
      last_error: expect.stringContaining('Only travel dates before today'),
    });
  });

  it("a function that computed Morocco's time reports TzDataMismatch after its answer (0: the stack's Node 22 data agrees with the bundled rules)", async () => {
    const p = await newPartner();
    // A quote computes Morocco's dates (today, the slot's instant).
    await quoteFor(p.test_key, (await packs(p.test_key)).FLEXIBLE, addDays(localDate(new Date()), 10));
    const s = await until(
      () => summary(['--name', 'TzDataMismatch']),
      (x) => figure(x, 'TzDataMismatch', {}) !== undefined,
      30_000,
    );
    expect(figure(s, 'TzDataMismatch', {})).toMatchObject({ max: 0 });
    expect(figure(s, 'TzDataMismatch', {})!.samples).toBeGreaterThanOrEqual(1);
  });
});

describe('disabling a partner', () => {
  it('makes every key of every member fail authentication at once, in both environments, until it is enabled again', async () => {
    const p = await newPartner();
    const dev = await memberWithRole('DEVELOPER', p);
    const keys = [p.live_key, p.test_key, dev.liveKey, dev.testKey];
    for (const key of keys) expect((await api('GET', '/me', { key })).status).toBe(200);

    const off = await admin(['partner:disable', '--partner', p.partner_id, '--json']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.json).toMatchObject({ partner_id: p.partner_id, enabled: false, disabled_at: expect.any(String) });
    for (const key of keys) {
      const r = await api('GET', '/me', { key });
      expect(`${r.status} ${r.body.code}`).toBe('401 auth.api_key.invalid');
    }
    expect((await write('POST', '/quotes', p.live_key, { rate_pack_id: 'x' })).status).toBe(401);
    const other = await newPartner();
    expect((await api('GET', '/me', { key: other.test_key })).status).toBe(200);

    const on = await admin(['partner:enable', '--partner', p.partner_id, '--json']);
    expect(on.json).toMatchObject({ enabled: true, disabled_at: null });
    for (const key of keys) expect((await api('GET', '/me', { key })).status).toBe(200);
    expect((await admin(['partner:disable', '--partner', '00000000-0000-4000-8000-000000000000', '--json'])).code).toBe(1);
  });
});
