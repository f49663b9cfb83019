import { randomUUID } from 'node:crypto';
import { GetAccountCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRuntime } from '../../infra/local/runtime-info';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * The local SES in the sandbox (LOCAL_SES_SANDBOX=true), in a stack of its own: only verified identities
 * receive mail, as in a new AWS account. A booking whose traveler's address SES refuses is still confirmed
 * (201); the refusal is counted (MailFailures) and the e-mail waits on the mail queue to be sent again.
 */
const VERIFIED = `verified-${randomUUID().slice(0, 6)}@bank-atlas.test`;
let stack: OwnStack;

beforeAll(async () => {
  stack = await OwnStack.start('ses-sandbox', { LOCAL_SES_SANDBOX: 'true', LOCAL_SES_VERIFIED: VERIFIED });
}, BOOT_HOOK_MS);

afterAll(() => stack?.stop(), 30_000);

/** Books a sandbox quote for one traveler whose contact address is `email`. */
async function bookFor(email: string) {
  const p = await stack.sandboxPartner('Mail Bank');
  const q = await stack.call('POST', '/quotes', p.key, {
    rate_pack_id: p.pack.id,
    start_date: addDays(localDate(new Date()), 7),
    start_time: null,
    travelers: [{ age: 30 }],
  });
  expect(q.status, JSON.stringify(q.body)).toBe(201);
  const body = bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body)));
  return stack.call('POST', '/bookings', p.key, { ...body, contact: { ...body.contact, email } });
}

const mailTo = async (to: string) => (await stack.admin(['mail:list', '--to', to])).data as { from: string; subject: string }[];
const mailFigures = async () => {
  const s = await stack.admin(['metrics:summary']);
  const refused = (s.metrics as { name: string; dimensions: Record<string, string>; sum: number }[]).find(
    (m) => m.name === 'MailFailures' && m.dimensions.reason === 'MessageRejected',
  );
  const queue = (s.queues as { queue: string; visible: number; in_flight: number }[]).find((q) => q.queue === 'mail')!;
  return { refused: refused?.sum ?? 0, queued: queue.visible + queue.in_flight };
};

describe('e-mail while SES is in the sandbox', () => {
  it('says so (GetAccount: no production access, the sandbox quotas)', async () => {
    const env = readRuntime(stack.stateDir, stack.port)!.env;
    const ses = new SESv2Client({
      region: env.AWS_REGION,
      endpoint: env.AWS_ENDPOINT_URL_SESV2,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    expect(await ses.send(new GetAccountCommand({}))).toMatchObject({ ProductionAccessEnabled: false, SendQuota: { Max24HourSend: 200, MaxSendRate: 1 } });
  });

  it('a traveler whose address is not verified: the booking is confirmed (201), the refusal counted, the e-mail queued to be sent again', async () => {
    const before = await mailFigures();
    const traveler = `traveler-${randomUUID().slice(0, 6)}@bank-atlas.test`;
    const r = await bookFor(traveler);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.status).toBe('CONFIRMED');
    expect(await mailTo(traveler)).toEqual([]);
    // Refused when the booking sent it, and again by the mail queue's consumer; it then waits for its next receive.
    let now = before;
    for (let i = 0; i < 100 && !(now.refused >= before.refused + 2 && now.queued >= before.queued + 1); i++) {
      await new Promise((r) => setTimeout(r, 200));
      now = await mailFigures();
    }
    expect(now.refused).toBeGreaterThanOrEqual(before.refused + 2);
    expect(now.queued).toBeGreaterThanOrEqual(before.queued + 1);
  });

  it('a verified traveler gets the confirmation, from the deployment sender', async () => {
    const r = await bookFor(VERIFIED);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const env = readRuntime(stack.stateDir, stack.port)!.env;
    expect((await mailTo(VERIFIED)).map((m) => [m.from, m.subject])).toEqual([
      [env.MAIL_FROM, `[TEST] Booking ${r.body.booking_number} confirmed: ${r.body.adventure.title}`],
    ]);
  });
});
