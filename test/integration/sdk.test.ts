import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { createClient, OPERATIONS, type OperationId, PartnerApiError } from '../../sdk/src/index';
import { baseUrl, newPartner } from './helpers';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');

async function bookableSlot(client: ReturnType<typeof createClient>) {
  const from = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  for await (const adventure of client.catalog.listAdventures({ city: 'Marrakech', limit: 3 })) {
    const a = await client.catalog.getAvailability({ path: { slug: adventure.slug }, query: { from } });
    const s = a.data.find((x) => x.remaining >= 2);
    if (s) return s;
  }
  throw new Error('no slot');
}

describe('the SDK against the local stack', () => {
  it('iterates every list of the API across pages, each item once, in the order of one big page', async () => {
    const p = await newPartner();
    const client = createClient({ apiKey: p.test_key, baseUrl: baseUrl() });
    const slot = await bookableSlot(client);
    for (let i = 0; i < 3; i++) {
      await client.quotes.create({
        body: { rate_pack_id: slot.rate_pack_id, start_date: slot.date, start_time: slot.start_time, travelers: [{ age: 30 }, { age: 31 }] },
      });
    }
    // The request log grows with every read of it (each page is a request): request-logs.test.ts pages it through a filter instead.
    const lists = (Object.keys(OPERATIONS) as OperationId[]).filter(
      (id) => OPERATIONS[id].paginated && !OPERATIONS[id].hasPathParams && id !== 'listRequestLogs',
    );
    expect(lists).toEqual(
      expect.arrayContaining(['listAdventures', 'listQuotes', 'listBookings', 'listSettlements', 'listWebhookDeliveries', 'listAuditEvents']),
    );
    const crossed: string[] = [];
    for (const id of lists) {
      const all: unknown[] = [];
      for await (const item of client.paginate(id as 'listQuotes', { query: { limit: 2 } })) {
        all.push(item);
        if (all.length === 5) break;
      }
      const page = (await client.request(id as 'listQuotes', { query: { limit: 5 } })) as { data: unknown[] };
      expect(all, id).toEqual(page.data);
      if (all.length > 2) crossed.push(id);
    }
    expect(crossed).toEqual(expect.arrayContaining(['listAdventures', 'listQuotes', 'listAuditEvents']));
  });

  it('signs live writes (and the service accepts them), and surfaces errors as PartnerApiError with the documented code', async () => {
    const p = await newPartner();
    const live = createClient({ apiKey: p.live_key, baseUrl: baseUrl() });
    const slot = await bookableSlot(live);
    const quote = await live.quotes.create({
      body: { rate_pack_id: slot.rate_pack_id, start_date: slot.date, start_time: slot.start_time, travelers: [{ age: 30 }, { age: 31 }] },
      idempotencyKey: `sdk-${Date.now()}`,
    });
    expect(quote.net_amount.currency).toBe('MAD');

    const forged = createClient({ apiKey: `${p.live_key.slice(0, -4)}XXXX`, baseUrl: baseUrl(), maxRetries: 0 });
    const e1 = await forged.meta.getMe().catch((e) => e);
    expect(e1).toBeInstanceOf(PartnerApiError);
    expect(e1).toMatchObject({ status: 401, code: 'auth.api_key.invalid' });
    expect(e1.request_id).toMatch(/[0-9a-f-]{36}/);

    const e2 = await live.bookings.get({ path: { booking_number: 'PTB-0000-0000' } }).catch((e) => e);
    expect(e2).toBeInstanceOf(PartnerApiError);
    expect(e2.is('getBooking')).toBe(true);
    expect(e2).toMatchObject({ status: 404, code: 'resource.not_found' });

    const e3 = await live.quotes
      .create({ body: { rate_pack_id: slot.rate_pack_id, start_date: '2020-01-01', start_time: slot.start_time, travelers: [{ age: 30 }, { age: 31 }] } })
      .catch((e) => e);
    expect(e3).toMatchObject({ status: 422, code: 'quote.start_date.in_past' });
  });

  it("finds a failed request in the request log by the error's request_id, and lists it by its code", async () => {
    const p = await newPartner();
    const client = createClient({ apiKey: p.test_key, baseUrl: baseUrl(), maxRetries: 0 });
    const slot = await bookableSlot(client);
    const e = await client.quotes
      .create({ body: { rate_pack_id: slot.rate_pack_id, start_date: '2020-01-01', start_time: slot.start_time, travelers: [{ age: 30 }] } })
      .catch((x) => x);
    expect(e).toMatchObject({ status: 422, code: 'quote.start_date.in_past' });
    // Written a few seconds after the request (docs/guides/request-logs.md): asked again until it is there.
    let entry: Awaited<ReturnType<typeof client.meta.getRequestLog>> | undefined;
    for (const end = Date.now() + 20_000; !entry && Date.now() < end; await new Promise((ok) => setTimeout(ok, 250))) {
      entry = await client.meta.getRequestLog({ path: { request_id: e.request_id } }).catch((x) => {
        if (x instanceof PartnerApiError && x.code === 'resource.not_found') return undefined;
        throw x;
      });
    }
    expect(entry).toMatchObject({
      request_id: e.request_id,
      method: 'POST',
      path: '/v1/quotes',
      status: 422,
      error_code: 'quote.start_date.in_past',
      key_id: p.test_key_id,
    });
    expect(JSON.parse(entry!.request_body!.content!)).toMatchObject({ start_date: '2020-01-01' });
    const failed = await client.meta.listRequestLogs({ code: 'quote.start_date.in_past' }).toArray();
    expect(failed.map((r) => r.request_id)).toEqual([e.request_id]);
    // An id of the right form that no request has (a malformed one is a 400: request-logs.test.ts).
    const unknown = await client.meta.getRequestLog({ path: { request_id: randomUUID() } }).catch((x) => x);
    expect(unknown).toMatchObject({ status: 404, code: 'resource.not_found' });
  });

  it('names a key and reads its last use; a name with a bidi control is a PartnerApiError 400 on the name', async () => {
    const p = await newPartner();
    const client = createClient({ apiKey: p.test_key, baseUrl: baseUrl() });
    const issued = await client.team.createApiKey({ body: { member_id: p.member_id, name: 'payments-prod-eu1' } });
    expect(issued).toMatchObject({ name: 'payments-prod-eu1', last_used_at: null });
    await createClient({ apiKey: issued.key!, baseUrl: baseUrl() }).meta.getMe();
    const listed: { id: string; name: string | null; last_used_at: string | null }[] = [];
    for await (const k of client.paginate('listApiKeys', { query: { limit: 1 } })) listed.push(k);
    expect(listed.find((k) => k.id === issued.id)).toMatchObject({ name: 'payments-prod-eu1', last_used_at: expect.stringMatching(/^\d{4}-/) });

    const bad = await client.team.createApiKey({ body: { member_id: p.member_id, name: 'eu1\u202Edorp' } }).catch((e) => e);
    expect(bad).toBeInstanceOf(PartnerApiError);
    expect(bad).toMatchObject({ status: 400, code: 'validation.field.invalid' });
    expect(bad.details.errors[0]).toMatchObject({ field: 'name' });
  });

  it('reads and moves the sandbox clock (client.testHelpers.clock): 31 minutes ahead once ready; a `to` behind it is clock.advance.backwards', async () => {
    const p = await newPartner();
    const client = createClient({ apiKey: p.test_key, baseUrl: baseUrl(), maxRetries: 0 });
    const before = await client.testHelpers.clock.get();
    expect(before).toMatchObject({ status: 'ready', advanced_by_seconds: 0, advancing_to: null });

    const to = new Date(Date.parse(before.now) + 31 * 60_000);
    const ready = await client.testHelpers.clock.advance({ to, waitUntilReady: true });
    expect(ready).toMatchObject({ status: 'ready', advancing_to: null });
    expect(Date.parse(ready.now)).toBeGreaterThanOrEqual(to.getTime());
    // 31 minutes (1860 s), less the real time the advance took: the clock stands still while it plays.
    const read = await client.testHelpers.clock.get();
    expect(read.status).toBe('ready');
    expect(read.advanced_by_seconds).toBeGreaterThan(1800);
    expect(read.advanced_by_seconds).toBeLessThanOrEqual(1860);

    const back = await client.testHelpers.clock.advance({ to: before.now }).catch((e) => e);
    expect(back).toBeInstanceOf(PartnerApiError);
    expect(back.is('advanceSandboxClock')).toBe(true);
    expect(back).toMatchObject({ status: 422, code: 'clock.advance.backwards' });
    expect(Date.parse(back.details.now)).toBeGreaterThanOrEqual(to.getTime());

    // A test helper: a live key does not find it.
    const live = createClient({ apiKey: p.live_key, baseUrl: baseUrl(), maxRetries: 0 });
    expect(await live.testHelpers.clock.get().catch((e) => e)).toMatchObject({ status: 404, code: 'request.route.not_found' });
  });

  it('runs the quickstart (sdk/examples/quickstart.ts) end to end', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'sdk/examples/quickstart.ts'], {
      cwd: ROOT,
      env: { ...process.env, PTBS_API_KEY: inject('demoTestKey'), PTBS_BASE_URL: baseUrl(), PORT: String(inject('port')), LOCAL_STATE_DIR: inject('stateDir') },
      timeout: 90_000,
    });
    for (const line of [
      /^1\. browse: /m,
      /^2\. quote /m,
      /^3\. payment confirmation signed/m,
      /^4\. booked PTB-/m,
      /^5\. webhook booking\.confirmed .* verified/m,
      /^6\. cancellation quote/m,
      /^7\. cancelled: CANCELLED/m,
      /booking\.quote\.already_booked/,
      /^Quickstart done\.$/m,
    ]) {
      expect(stdout).toMatch(line);
    }
  }, 120_000);
});
