import { randomUUID } from 'node:crypto';
import { type Client, createClient, PartnerApiError, signPaymentConfirmation } from '../../sdk/src/index';
import { type SmokeOptions, webhookPlan } from './options';
import { derivedPaymentKey, paymentKeyFromFile, registerPaymentKey } from './payment-key';
import { startReceiver } from './receiver';
import { CheckFailed, describeError, type Report } from './report';

/** How the smoke's webhook endpoints are told apart from a partner's own. */
export const ENDPOINT_DESCRIPTION = 'npm run smoke: deleted at the end of its run';
/** An endpoint of the smoke older than this was left by a run that was killed: the next run deletes it. */
const STALE_ENDPOINT_MS = 10 * 60_000;
/** The sandbox key must hold every scope the journey uses: a PARTNER_ADMIN's. */
const SANDBOX_SCOPES = ['catalog:read', 'quotes:write', 'bookings:write', 'webhooks:write', 'settlements:read', 'settlements:write'];
const USER_AGENT = 'ptbs-smoke';
const DAY_MS = 86_400_000;

const check = (ok: unknown, message: string) => {
  if (!ok) throw new CheckFailed(message);
};

/** Undone at the end of the run, failed or not, newest first. */
export class Cleanup {
  private readonly tasks = new Map<string, () => Promise<string>>();
  add(name: string, task: () => Promise<string>) {
    this.tasks.set(name, task);
  }
  done(name: string) {
    this.tasks.delete(name);
  }
  async run(report: Report) {
    for (const [name, task] of [...this.tasks].reverse()) {
      this.tasks.delete(name);
      await report.cleanup('cleanup', task);
    }
  }
}

/** Polls a settlement document while the service answers 409 settlement.documents.pending (just issued). */
async function whenStored(fetchDocument: () => Promise<Uint8Array>, deadline = Date.now() + 60_000): Promise<Uint8Array> {
  for (;;) {
    try {
      return await fetchDocument();
    } catch (e) {
      if (!(e instanceof PartnerApiError && e.code === 'settlement.documents.pending') || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, Math.min(5_000, Number(e.headers.get('retry-after') ?? 1) * 1000)));
    }
  }
}

/** A slot a week or more ahead (cancellable for a full refund under most policies) and a party its rate pack takes. */
async function findSlot(client: Client) {
  const from = new Date(Date.now() + 7 * DAY_MS).toISOString().slice(0, 10);
  const page = await client.request('listAdventures', { query: { limit: 20 } });
  for (const adventure of page.data.filter((a) => a.bookable)) {
    const [detail, availability] = await Promise.all([
      client.catalog.getAdventure({ path: { slug: adventure.slug } }),
      client.catalog.getAvailability({ path: { slug: adventure.slug }, query: { from } }),
    ]);
    for (const slot of availability.data) {
      const pack = detail.rate_packs.find((p) => p.id === slot.rate_pack_id);
      const oldest = [...(pack?.age_brackets ?? [])].sort((a, b) => b.max_age - a.max_age)[0];
      if (!pack || !oldest) continue;
      const party = Math.max(1, pack.min_travelers);
      if (slot.remaining < party || party > pack.max_travelers) continue;
      const age = Math.min(Math.max(35, oldest.min_age), oldest.max_age);
      return { slug: adventure.slug, slot, travelers: Array.from({ length: party }, () => ({ age })) };
    }
  }
  throw new CheckFailed(`no slot with room in the two weeks from ${from} among the first ${page.data.length} adventures`);
}

/** The partner's sandbox journey, step by step; what it leaves open is undone by `cleanup`. */
export async function sandboxJourney(o: SmokeOptions, report: Report, cleanup: Cleanup) {
  const client = createClient({ apiKey: o.sandboxKey, baseUrl: o.baseUrl, userAgent: USER_AGENT });
  const runId = `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomUUID().slice(0, 4)}`;

  await report.step('health', async () => {
    const h = await client.meta.getHealth();
    check(h.status === 'ok', `health answered ${JSON.stringify(h)}`);
    return [h, `status ${h.status}`];
  });

  const me = await report.step('me', async () => {
    const m = await client.meta.getMe();
    check(m.environment === 'test', `the sandbox key acts in '${m.environment}', not the sandbox`);
    const missing = SANDBOX_SCOPES.filter((s) => !m.scopes.includes(s));
    check(!missing.length, `role ${m.member.role} lacks ${missing.join(', ')}: the smoke needs a PARTNER_ADMIN sandbox key`);
    return [m, `${m.partner.name} (partner ${m.partner.id}), sandbox, ${m.member.role}`];
  });

  const found = await report.step('catalog', async () => {
    const f = await findSlot(client);
    return [f, `${f.slug} ${f.slot.date} ${f.slot.start_time ?? '(all day)'}, ${f.slot.remaining} left`];
  });

  const quote = await report.step('quote', async () => {
    const q = await client.quotes.create({
      body: { rate_pack_id: found.slot.rate_pack_id, start_date: found.slot.date, start_time: found.slot.start_time, travelers: found.travelers },
    });
    return [q, `${q.id} ${q.net_amount.amount} ${q.net_amount.currency} for ${q.travelers.length}, expires ${q.expires_at}`];
  });

  const booking = await report.step('booking', async () => {
    const jwk = o.paymentJwk ? paymentKeyFromFile(o.paymentJwk) : await derivedPaymentKey(o.sandboxKey);
    const book = async () =>
      client.bookings.create({
        body: {
          quote_id: quote.id,
          partner_reference: `SMOKE-${runId}`,
          customer_reference: 'smoke',
          // SES's mailbox simulator: accepted and dropped, never a bounce on the sender's reputation.
          contact: { first_name: 'Smoke', last_name: 'Test', email: 'success@simulator.amazonses.com', phone: '+212 600 000 000' },
          travelers: quote.travelers.map((_, i) => ({ first_name: 'Smoke', last_name: `Traveler ${i + 1}` })),
          payment_confirmation: await signPaymentConfirmation(jwk, {
            quote_id: quote.id,
            amount: quote.net_amount,
            payment_reference: `SMOKE-${runId}`,
            paid_at: new Date().toISOString(),
          }),
        },
      });
    let b: Awaited<ReturnType<typeof book>>;
    try {
      b = await book();
    } catch (e) {
      // The first run against a deployment: the smoke's own key is not registered yet (the quote is still unused).
      if (o.paymentJwk || !(e instanceof PartnerApiError && e.code === 'payment.key.unknown')) throw e;
      await report.step('payment-key', async () => [undefined, await registerPaymentKey(o, me.partner.id, jwk)]);
      b = await book();
    }
    cleanup.add('cancel', async () => {
      const c = await client.bookings.cancel({ path: { booking_number: b.booking_number }, body: { reason: 'npm run smoke: cleanup' } });
      return `booking ${c.booking_number} ${c.status}`;
    });
    check(b.status === 'CONFIRMED', `booking ${b.booking_number} is ${b.status}, not CONFIRMED`);
    return [b, `${b.booking_number} ${b.status}, payment confirmation signed with ${jwk.kid}`];
  });

  await webhookStep(client, o, report, cleanup);

  await report.step('cancel', async () => {
    const preview = await client.bookings.getCancellationQuote({ path: { booking_number: booking.booking_number } });
    check(preview.cancellable, `booking ${booking.booking_number} is not cancellable (${preview.status})`);
    const c = await client.bookings.cancel({ path: { booking_number: booking.booking_number }, body: { reason: 'npm run smoke' } });
    cleanup.done('cancel');
    check(c.status === 'CANCELLED', `booking ${c.booking_number} is ${c.status} after its cancellation`);
    return [c, `${c.booking_number} ${c.status}, refund ${preview.refundable_amount?.amount} MAD, fee ${preview.fee_amount?.amount} MAD`];
  });

  const settlement = await report.step('settlement', async () => {
    const { data } = await client.testHelpers.runSettlements({ body: {} });
    // The booking is in the latest period the run closed (a month closed early sends later bookings to the next one).
    const s = [...data].sort((a, b) => b.period_start.localeCompare(a.period_start))[0];
    check(s, 'the settlement run issued nothing, though a booking was made a moment ago');
    check(s!.status === 'ISSUED', `settlement ${s!.id} is ${s!.status} after the run`);
    return [s!, `${s!.number} ${s!.status}, ${s!.period_start} to ${s!.period_end}, ${s!.line_count} line(s), total ${s!.total_due.amount} MAD`];
  });

  await report.step('documents', async () => {
    const pdf = await whenStored(() => client.settlements.getInvoice({ path: { id: settlement.id } }));
    const csv = new TextDecoder().decode(await whenStored(() => client.settlements.getStatement({ path: { id: settlement.id } })));
    check(new TextDecoder().decode(pdf.subarray(0, 5)) === '%PDF-', `invoice.pdf of ${settlement.number} is not a PDF`);
    check(csv.includes(`InvoiceNumber;${settlement.number}`), `statement.csv does not name ${settlement.number}`);
    check(csv.includes(booking.booking_number), `statement.csv of ${settlement.number} does not list ${booking.booking_number}`);
    return [undefined, `invoice.pdf ${Math.ceil(pdf.length / 1024)} KB, statement.csv lists ${booking.booking_number}`];
  });

  await report.step('pay', async () => {
    const paid = await client.testHelpers.paySettlement({ path: { id: settlement.id }, body: { transfer_reference: `SMOKE-${runId}` } });
    check(paid.status === 'PAID', `settlement ${paid.number} is ${paid.status} after the simulated transfer`);
    return [paid, `${paid.number} ${paid.status}, transfer ${paid.transfer_reference}`];
  });
}

/**
 * A test send to a receiver this command runs, verified as a bank verifies a delivery. The
 * endpoint lives only for the step; endpoints a killed run left behind are deleted first.
 */
async function webhookStep(client: Client, o: SmokeOptions, report: Report, cleanup: Cleanup) {
  const plan = webhookPlan(o);
  if (plan.kind === 'skip') return report.skip('webhook', plan.reason);
  await report.step('webhook', async () => {
    if (plan.kind !== 'receive') throw new CheckFailed(`${plan.reason} (--require-webhook)`);
    const receiver = await startReceiver(plan.port);
    try {
      const { data: endpoints } = await client.webhooks.list();
      const stale = endpoints.filter((e) => e.description === ENDPOINT_DESCRIPTION && Date.parse(e.created_at) < Date.now() - STALE_ENDPOINT_MS);
      for (const e of stale) await client.webhooks.delete({ path: { id: e.id } });

      const url = plan.url ?? `http://127.0.0.1:${receiver.port}/smoke-webhook`;
      // booking.completed: an event the journey never causes, so the test send is the only delivery.
      const endpoint = await client.webhooks.create({ body: { url, event_types: ['booking.completed'], description: ENDPOINT_DESCRIPTION } });
      cleanup.add('webhook', async () => {
        await client.webhooks.delete({ path: { id: endpoint.id } });
        return `webhook endpoint ${endpoint.id} deleted`;
      });
      receiver.useSecret(endpoint.signing_secret ?? '');
      const sent = await client.webhooks.test({ path: { id: endpoint.id }, body: {} });
      const got = receiver.receipts.find((r) => r.event_id === sent.event_id);
      check(!got?.refused, `the receiver refused the test event ${sent.event_id}: ${got?.refused}`);
      check(sent.delivered && got?.event, `the test event ${sent.event_id} was not delivered: ${sent.error ?? `HTTP ${sent.http_status}`}`);
      await client.webhooks.delete({ path: { id: endpoint.id } });
      cleanup.done('webhook');
      const tidied = stale.length ? `; deleted ${stale.length} endpoint(s) a killed run left` : '';
      return [undefined, `${sent.event_type} test event ${sent.event_id} delivered in ${sent.response_time_ms} ms, signature verified${tidied}`];
    } finally {
      await receiver.close();
    }
  });
}

/**
 * What is safe in production: who the live key is, and that live writes are signed. An unsigned
 * write must be refused (401); a signed DELETE of a webhook endpoint that does not exist passes
 * the signature check and answers 404: nothing is created, changed or billed.
 */
export async function liveChecks(o: SmokeOptions, report: Report) {
  if (!o.liveKey) return report.skip('live', 'no live key (PTBS_LIVE_KEY): the live part did not run');
  const liveKey = o.liveKey;
  const live = createClient({ apiKey: liveKey, baseUrl: o.baseUrl, userAgent: USER_AGENT });
  const me = await report.step('live-me', async () => {
    const m = await live.meta.getMe();
    check(m.environment === 'live', `the live key acts in '${m.environment}', not production`);
    return [m, `${m.partner.name} (partner ${m.partner.id}), live, ${m.member.role}`];
  });
  if (!me.scopes.includes('webhooks:write')) {
    return report.skip('live-signing', `role ${me.member.role} cannot write: a PARTNER_ADMIN or DEVELOPER live key checks signing`);
  }
  await report.step('live-signing', async () => {
    const absent = { path: { id: randomUUID() } };
    const unsigned = createClient({
      apiKey: liveKey,
      baseUrl: o.baseUrl,
      userAgent: USER_AGENT,
      maxRetries: 0,
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        headers.delete('x-timestamp');
        headers.delete('x-signature');
        return fetch(url, { ...init, headers });
      },
    });
    const refused = await unsigned.webhooks.delete(absent).then(
      () => undefined,
      (e: unknown) => e,
    );
    check(
      refused instanceof PartnerApiError && refused.status === 401,
      `an unsigned live write was not refused: ${refused ? describeError(refused) : 'it succeeded'}`,
    );
    const signed = await live.webhooks.delete(absent).then(
      () => undefined,
      (e: unknown) => e,
    );
    check(
      signed instanceof PartnerApiError && signed.code === 'resource.not_found',
      `a signed live write was not accepted: ${signed ? describeError(signed) : 'it deleted something'}`,
    );
    return [undefined, `unsigned write refused (401 ${(refused as PartnerApiError).code}), signed write accepted (404: nothing to delete)`];
  });
}
