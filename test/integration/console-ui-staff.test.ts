import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type AxeFinding, browserForFile, check, consoleUrl, openConsole, partnerAdmin, sandboxBooking, settle, signInUi, visit } from './console-helpers';
import { api, newPartner, write } from './helpers';

/**
 * The console answers what a bank's operations staff ask (issue 41, 2): a delivery's payload and its receiver's
 * answers, the delivery log by event type and booking, a booking's events, deliveries and settlement, a sandbox
 * settlement without the account to pay, a confirmed move of the sandbox clock and a banner while it runs ahead,
 * pages fresh after an action, the sandbox at each sign-in, keys never used, amounts as the PDF prints them, and a
 * tab left open across a restart told what happened.
 */

/** A receiver that answers `answer.status` with a header and a body of 3 000 bytes (past the kept KB), and counts what it gets. */
async function chattyReceiver() {
  const answer = { status: 503 };
  const received: string[] = [];
  const body = `maintenance window: come back later. ${'x'.repeat(3_000)}`;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(answer.status, { 'content-type': 'text/plain', 'x-receiver-trace': 'trace-7f3a' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/bank-hooks`,
    answer,
    received,
    body,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// The browser's globals, for the functions that run in the page (the tests' tsconfig has no DOM library).
declare const document: { createRange(): { selectNodeContents(node: unknown): void; getClientRects(): { length: number } } };

/** The texts of the main region, spaces as a reader sees them (the console's no-break spaces as spaces). */
const mainText = async (page: Page) => (await page.locator('main').innerText()).replace(/[\u00a0\u202f]/g, ' ');

describe('the partner console in a real browser: what operations staff ask', () => {
  const browser = browserForFile();

  it("a delivery shows its payload, the booking it is about and each attempt's answer; the log filters by event type and booking; the booking lists its events, deliveries and settlement; a re-send refreshes the page by itself", async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const receiver = await chattyReceiver();
    try {
      const hook = (await write('POST', '/webhooks', p.test_key, { url: receiver.url, event_types: ['booking.confirmed', 'booking.cancelled'] })).body;
      const booked = await sandboxBooking(p);
      const other = await sandboxBooking(p, 21);
      // Every attempt answered 503 (the retries wait milliseconds at the tests' scale): both deliveries FAILED, their
      // 6 attempts made (FAILED is final; an empty PENDING list could be the index lagging a delivery's creation).
      await expect
        .poll(
          async () =>
            (await api('GET', `/webhooks/deliveries?endpoint_id=${hook.id}`, { key: p.test_key })).body.data.map(
              (d: { status: string; attempts: number }) => `${d.status} ${d.attempts}`,
            ),
          { timeout: 90_000, interval: 500 },
        )
        .toEqual(['FAILED 6', 'FAILED 6']);
      const sent = await write('POST', `/webhooks/${hook.id}/test`, p.test_key, { event_type: 'booking.cancelled' });
      expect(sent.status, sent.text).toBe(200);

      const { page, problems } = await openConsole(browser());
      const findings: AxeFinding[] = [];
      await signInUi(page, admin);

      // The log by event type and booking: the booking's one delivery, then none for a type it has none of.
      await visit(page, 'webhooks/deliveries', 'Delivery log');
      const bodyRows = page.locator('tbody tr');
      await expect.poll(() => bodyRows.count(), { timeout: 20_000 }).toBe(3);
      await page.getByLabel('Event', { exact: true }).selectOption('booking.confirmed');
      await page.getByLabel('Booking number').fill(booked.booking_number.toLowerCase());
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await settle(page);
      await expect.poll(() => bodyRows.count()).toBe(1);
      await check(page, 'staff-deliveries-filtered', findings);
      await page.getByLabel('Event', { exact: true }).selectOption('booking.cancelled');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await settle(page);
      await page.getByText('No deliveries match these filters.').waitFor();
      // By type alone: the test send (booking.cancelled), not the two bookings' confirmations.
      await page.getByLabel('Booking number').fill('');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await settle(page);
      await expect.poll(() => bodyRows.count()).toBe(1);
      expect(await bodyRows.innerText()).toContain('(test send)');

      const confirmed = (await api('GET', `/webhooks/deliveries?booking_number=${booked.booking_number}&event_type=booking.confirmed`, { key: p.test_key }))
        .body.data;
      expect(confirmed).toHaveLength(1);
      const delivery = confirmed[0];
      await visit(page, `webhooks/deliveries/${delivery.id}`, /^Delivery /);
      // The payload as sent, and the booking it is about, linked.
      const payload = JSON.parse(await page.getByTestId('payload').innerText());
      expect(payload).toMatchObject({ id: delivery.event_id, type: 'booking.confirmed', data: { booking_number: booked.booking_number } });
      expect(receiver.received).toContain(JSON.stringify(payload));
      expect(await page.getByRole('link', { name: booked.booking_number }).getAttribute('href')).toBe(`#/bookings/${booked.booking_number}`);
      // Each attempt's answer: its status, its headers, the first KB of its body.
      const first = page.getByRole('region', { name: 'Attempt 1: HTTP 503' });
      await first.waitFor();
      expect(await first.getByRole('row', { name: /^x-receiver-trace/ }).innerText()).toContain('trace-7f3a');
      const kept = await first.locator('pre').innerText();
      expect(kept).toBe(receiver.body.slice(0, 1024));
      await first.getByText('Body (its first KB)').waitFor();
      expect(await page.getByRole('region', { name: /^Attempt \d: HTTP 503$/ }).count()).toBe(6);
      await check(page, 'staff-delivery', findings);

      // The booking: its events, each with its deliveries, and the settlement that bills it.
      await page.getByRole('link', { name: booked.booking_number }).click();
      await settle(page, `Booking ${booked.booking_number}`);
      const events = page.getByRole('table', { name: "The booking's events, most recent first, with their deliveries" });
      await events.waitFor();
      const row = events.getByRole('row', { name: /^booking\.confirmed/ });
      // Its deliveries are read beside the events: the link appears once they are.
      await row.getByRole('link', { name: `Delivery ${delivery.id.slice(0, 8)} of booking.confirmed` }).waitFor();
      expect(await row.innerText()).toContain('FAILED');
      expect(await events.innerText()).not.toContain(other.booking_number);
      const settlement = (await api('GET', `/bookings/${booked.booking_number}`, { key: p.test_key })).body.settlement_period;
      const draft = (await api('GET', `/settlements?period_from=${settlement}&period_to=${settlement}`, { key: p.test_key })).body.data[0];
      const billed = page.getByRole('definition').filter({ has: page.locator(`a[href="#/settlements/${draft.id}"]`) });
      await billed.waitFor();
      await check(page, 'staff-booking', findings);

      // The receiver is fixed: a re-send from the endpoint's page, and the page shows the outcome without a reload.
      receiver.answer.status = 200;
      await visit(page, `webhooks/${hook.id}`, 'Webhook endpoint');
      const status = page
        .getByRole('definition')
        .filter({ hasText: /ACTIVE|FAILING/ })
        .first();
      await expect.poll(() => status.innerText()).toContain('FAILING');
      await page.getByRole('button', { name: 'Re-send failed deliveries' }).click();
      await page.getByText(/^\d event\(s\) re-sent, 0 waiting retries attempted now\.$/).waitFor({ timeout: 30_000 });
      await expect.poll(() => status.innerText(), { timeout: 30_000 }).not.toContain('FAILING');
      const table = page.getByRole('region', { name: 'Deliveries to this endpoint' });
      await expect.poll(async () => (await table.innerText()).split('DELIVERED').length - 1 >= 2, { timeout: 30_000 }).toBe(true);

      expect(problems).toEqual([]);
      expect(findings).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 240_000);

  it('a sandbox settlement leaves out the account, amounts read as the PDF writes them, the clock moves only once confirmed and the banner says it runs ahead on every page', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    // Enough bookings to pass 1 000 MAD, then the month closed (its settlement issued, in test mode).
    const numbers: string[] = [];
    let total = 0;
    while (total < 1000) {
      const b = await sandboxBooking(p, 20 + numbers.length);
      numbers.push(b.booking_number);
      total += Number((await api('GET', `/bookings/${b.booking_number}`, { key: p.test_key })).body.net_amount.amount);
    }
    const run = await write('POST', '/test-helpers/settlements/run', p.test_key);
    expect(run.status, run.text).toBe(200);
    const s = run.body.data[0];
    const [units, cents] = s.total_due.amount.split('.');
    const printed = `${units.replace(/\B(?=(\d{3})+$)/g, ' ')}.${cents} MAD`;
    expect(printed).toMatch(/^\d{1,3} \d{3}\.\d{2} MAD$/);

    const { page, problems } = await openConsole(browser(), { locale: 'en-GB', timezoneId: 'Africa/Casablanca' });
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    await visit(page, `settlements/${s.id}`, `Settlement ${s.number}`);
    const pay = page.getByRole('region', { name: 'Payment instructions' });
    const payText = await pay.innerText();
    expect(payText).toContain('Test mode: make no transfer.');
    expect(payText).not.toContain(s.payment_instructions.rib);
    expect(await pay.getByRole('button', { name: 'Copy the RIB' }).count()).toBe(0);
    expect(await pay.getByRole('button', { name: 'Copy the reference' }).count()).toBe(1);
    // As the PDF writes it: "1 300.00", grouped by a narrow no-break space, never wrapped inside.
    expect(await mainText(page)).toContain(printed);
    expect(await page.locator('main').innerText()).toContain(`${units.replace(/\B(?=(\d{3})+$)/g, '\u202f')}.${cents}\u00a0MAD`);
    await check(page, 'staff-settlement-test-mode', findings);

    // Narrow, a booking number and an amount still take one line each.
    await page.setViewportSize({ width: 420, height: 800 });
    const lines = page.getByRole('table', { name: /^Lines of the settlement/ });
    await lines.waitFor();
    // The line boxes of each booking number's link, and of each amount's text.
    const links = await lines.locator('tbody th a').evaluateAll((els) => els.map((e) => e.getClientRects().length));
    expect(links).toEqual(numbers.map(() => 1));
    const amounts = await lines.locator('tbody td.num').evaluateAll((els) =>
      els.map((e) => {
        const range = document.createRange();
        range.selectNodeContents(e);
        return range.getClientRects().length;
      }),
    );
    expect(amounts.length).toBeGreaterThan(0);
    expect(amounts.filter((n) => n !== 1)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The clock: a click asks first, naming the instant and the whole team; Keep leaves it where it was.
    const banner = page.locator('.sandbox-banner');
    expect(await banner.innerText()).not.toContain('Sandbox clock');
    await visit(page, 'sandbox', 'Sandbox tools');
    const clock = page.getByRole('region', { name: 'The sandbox clock' });
    await clock.getByText('in step with real time').waitFor();
    await clock.getByRole('button', { name: 'Advance 1 day' }).click();
    const question = clock.getByRole('group', { name: /^Move the sandbox clock to / });
    await question.waitFor();
    const target = (await question.locator('time').getAttribute('datetime'))!;
    expect(Date.parse(target) - Date.now()).toBeGreaterThan(86_400_000 - 120_000);
    expect(await question.innerText()).toContain("your whole team's sandbox, for every member");
    await check(page, 'staff-clock-confirm', findings);
    await question.getByRole('button', { name: 'Keep the clock where it is' }).click();
    expect((await api('GET', '/test-helpers/clock', { key: p.test_key })).body.advanced_by_seconds).toBe(0);
    await clock.getByRole('button', { name: 'Advance 1 day' }).click();
    await question.getByRole('button', { name: "Move the team's sandbox clock" }).click();
    await clock.getByText(/^The clock is ready at /).waitFor({ timeout: 60_000 });
    const moved = (await api('GET', '/test-helpers/clock', { key: p.test_key })).body;
    expect(Math.abs(Date.parse(moved.now) - Date.parse(target))).toBeLessThan(60_000);

    // Every page's banner says the sandbox runs ahead; live's has no banner.
    for (const [hash, title] of [
      ['overview', 'Overview'],
      ['bookings', 'Bookings'],
      ['webhooks', 'Webhooks'],
    ] as const) {
      await visit(page, hash, title);
      await expect.poll(() => banner.innerText()).toMatch(/Sandbox clock (1 day|23 hours 5\d minutes) ahead of real time\./);
    }
    await check(page, 'staff-banner-ahead', findings);
    await page.getByRole('radio', { name: 'Live' }).check();
    await settle(page, 'Webhooks');
    expect(await banner.count()).toBe(0);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 300_000);

  it('signs in again in the sandbox after a session in live, says what an empty list means, and shows a key never used as never used', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    await page.getByRole('radio', { name: 'Live' }).check();
    await visit(page, 'bookings', 'Bookings');
    await page.getByText('No bookings in live yet: the bookings your systems make with a live key (sk_live_) appear here.').waitFor();
    await page.getByRole('checkbox', { name: 'Cancelled' }).check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await settle(page);
    await page.getByText('No bookings match these filters.').waitFor();

    // A key issued now and never used: "Never", not "Not in 90 days".
    const issued = await write('POST', '/api-keys', p.live_key, { member_id: admin.memberId, name: 'reconciliation-batch' });
    expect(issued.status, issued.text).toBe(201);
    await visit(page, 'api-keys', 'API keys');
    const keyRow = page.getByRole('row').filter({ hasText: 'reconciliation-batch' });
    await expect.poll(() => keyRow.innerText()).toContain('Never');
    expect(await keyRow.innerText()).not.toContain('Not in 90 days');
    await check(page, 'staff-keys-never', findings);

    // The key's request in the log says who made it: the key by its name, the member by their e-mail. The filter is
    // applied before the request exists: applying the same filters again must look anew, as the empty list says.
    const key = issued.body.key as string;
    const keyId = key.split('_')[2]!;
    await visit(page, 'requests', 'Requests');
    await page.getByLabel('Key id').fill(keyId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText(/^No requests match these filters .*apply them again to look anew/).waitFor();
    expect((await api('GET', '/me', { key })).status).toBe(200);
    const byRow = page.locator('tbody tr').filter({ hasText: '/v1/me' });
    // The entry appears a few seconds after the request (log delivery, then the index): the bound guards a hang.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Apply filters' }).click();
          await settle(page);
          return byRow.count();
        },
        { timeout: 120_000, interval: 2_000 },
      )
      .toBe(1);
    const by = await byRow.getByRole('cell').nth(6).innerText();
    expect(by).toContain('reconciliation-batch');
    expect(by).toContain(keyId);
    expect(by).toContain(admin.email);
    await check(page, 'staff-requests-by', findings);

    // Signed out in live, signed in again: the sandbox, as the guide says.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.goto(consoleUrl());
    await signInUi(page, admin);
    expect(await page.getByRole('radio', { name: 'Sandbox' }).isChecked()).toBe(true);
    await page.getByText('Sandbox: you are viewing test data').waitFor();

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 240_000);

  it('a tab left open across a restart says what happened and that a reload fixes it, and a reload does', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await page.goto(consoleUrl());
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    // The stack restarted while the tab was open: the sign-in service is no longer where the page calls it, and the
    // configuration the console serves now names another address.
    const config = (await (await fetch(`${consoleUrl()}config.json`)).json()) as { cognito: Record<string, string> };
    await page.route('**/cognito/', (r) => r.abort('connectionrefused'));
    await page.route('**/config.json', (r) =>
      r.fulfill({
        contentType: 'application/json',
        body: JSON.stringify({ ...config, cognito: { ...config.cognito, endpoint: 'http://127.0.0.1:1/cognito/' } }),
      }),
    );
    await page.getByLabel('E-mail').fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.locator('main [role=alert]');
    await alert.waitFor();
    const said = await alert.innerText();
    expect(said).toContain('The sign-in service moved since this page was opened');
    expect(said).toContain('Reload the page, then sign in.');
    expect(said).not.toMatch(/connection/i);
    await check(page, 'staff-sign-in-restarted', findings);

    // The service itself stopped (nor does the console's server answer): said so, not blamed on the reader.
    await page.unroute('**/config.json');
    await page.route('**/config.json', (r) => r.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => alert.innerText()).toContain('is stopped or restarting');

    // A reload fixes it.
    await page.unroute('**/config.json');
    await page.unroute('**/cognito/');
    await page.reload();
    await signInUi(page, admin);

    expect(problems.filter((x) => !x.includes('127.0.0.1:1'))).toEqual([]);
    expect(findings).toEqual([]);
  }, 120_000);
});
