import { describe, expect, it } from 'vitest';
import { nextPeriod, periodOf } from '../../shared/settlements/period';
import { type AxeFinding, browserForFile, check, openConsole, partnerAdmin, sandboxBooking, settle, signInUi, startReceiver, visit } from './console-helpers';
import { api, newPartner, write } from './helpers';

const DAY_S = 86_400;

describe('the partner console in a real browser: a month in the sandbox, by clicking', () => {
  const browser = browserForFile();

  it('completes a booking, cancels another after its cancellation quote, runs and pays the settlement, and every page passes axe', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const receiver = await startReceiver();
    try {
      expect(
        (await write('POST', '/webhooks', p.test_key, { url: receiver.url, event_types: ['booking.completed', 'booking.cancelled', 'settlement.paid'] }))
          .status,
      ).toBe(201);
      const travelling = await sandboxBooking(p, 20);
      const cancelled = await sandboxBooking(p, 30);

      const { page, problems } = await openConsole(browser());
      const findings: AxeFinding[] = [];
      await signInUi(page, admin);

      // Bookings: the list with its filters, a booking, its cancellation quote, then the cancellation.
      await visit(page, 'bookings', 'Bookings');
      await page.getByRole('link', { name: cancelled.booking_number }).waitFor();
      await check(page, 'bookings', findings);
      await page.getByRole('checkbox', { name: 'Cancelled' }).check();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await settle(page);
      await page.getByText('No bookings match these filters.').waitFor();
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('link', { name: cancelled.booking_number }).click();
      await settle(page, `Booking ${cancelled.booking_number}`);
      await check(page, 'booking', findings);
      await page.getByRole('button', { name: 'Cancel this booking…' }).click();
      const quote = page.getByRole('region', { name: 'Cancellation quote' });
      await quote.getByText('Refund if cancelled now').waitFor();
      await settle(page);
      await check(page, 'booking-cancellation-quote', findings);
      await quote.getByLabel('Reason (optional)').fill('Customer changed plans');
      await quote.getByRole('button', { name: 'Confirm the cancellation' }).click();
      await page.getByText(`Booking ${cancelled.booking_number} is cancelled`).waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator('main').innerText()).toContain('Customer changed plans');
      await check(page, 'booking-cancelled', findings);

      // The sandbox tools: travel a booking now, close the month, pay it.
      await visit(page, 'sandbox', 'Sandbox tools');
      await check(page, 'sandbox-tools', findings);
      await page.getByRole('button', { name: `Complete ${travelling.booking_number}` }).click();
      await page.getByText(`Booking ${travelling.booking_number} is COMPLETED.`).waitFor({ timeout: 20_000 });
      await page.getByRole('button', { name: 'Run the settlement' }).click();
      const issued = page.getByText(/^Issued: TEST-/);
      await issued.waitFor({ timeout: 60_000 });
      const number = /TEST-[\w-]+/.exec(await issued.innerText())![0];
      await check(page, 'sandbox-tools-issued', findings);
      await page.getByRole('button', { name: `Pay ${number}` }).click();
      await page.getByText(`Settlement ${number} is PAID.`).waitFor({ timeout: 20_000 });
      await expect.poll(() => receiver.received.map((d) => d.event.type).sort()).toEqual(['booking.cancelled', 'booking.completed', 'settlement.paid']);

      await visit(page, 'settlements', 'Settlements');
      await page.getByRole('link', { name: number }).click();
      await settle(page, `Settlement ${number}`);
      await expect.poll(() => page.locator('main').innerText()).toContain('PAID');
      await check(page, 'settlement', findings);
      await visit(page, 'settlements', 'Settlements');
      await check(page, 'settlements', findings);

      // The rest of the console, with what this month left in it.
      await visit(page, 'overview', 'Overview');
      await expect.poll(() => page.getByRole('table').innerText()).toContain(`/v1/test-helpers/settlements/`);
      expect(await page.getByRole('table').innerText()).toContain('Console');
      await check(page, 'overview-activity', findings);
      await visit(page, 'webhooks', 'Webhooks');
      await check(page, 'webhooks', findings);
      await visit(page, 'reviews', 'Reviews');
      await check(page, 'reviews', findings);
      await visit(page, 'nowhere', 'Page not found');
      await check(page, 'not-found', findings);

      expect(problems).toEqual([]);
      expect(findings).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('shows the sandbox clock and moves it a day by a click: progress, then ready a day later (as the API reads it too), and every state passes axe', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    await visit(page, 'sandbox', 'Sandbox tools');
    const clock = page.getByRole('region', { name: 'The sandbox clock' });
    const sandboxTime = async () => Date.parse((await clock.locator('dl time').first().getAttribute('datetime'))!);
    await clock.getByText('Ready: runs with real time').waitFor();
    await clock.getByText('in step with real time').waitFor();
    const before = await sandboxTime();
    expect(Math.abs(before - Date.now())).toBeLessThan(60_000);
    await check(page, 'sandbox-clock', findings);

    await clock.getByRole('button', { name: 'Advance 1 day' }).click();
    await clock.getByRole('button', { name: "Move the team's sandbox clock" }).click();
    await clock.getByText(/^Advancing the clock to /).waitFor();
    expect(await clock.getByRole('button', { name: 'Advance 1 hour' }).isDisabled()).toBe(true);
    await clock.getByText(/^The clock is ready at /).waitFor({ timeout: 60_000 });
    await settle(page);
    await clock.getByText(/^(1 day|23 hours 59 minutes) ahead of real time$/).waitFor();
    // A day after what it showed before, less the seconds the advance took (the clock stands still while it plays).
    expect((await sandboxTime()) - before).toBeGreaterThan((DAY_S - 60) * 1000);
    expect((await sandboxTime()) - before).toBeLessThan((DAY_S + 60) * 1000);
    const read = (await api('GET', '/test-helpers/clock', { key: p.test_key })).body;
    expect(read).toMatchObject({ status: 'ready', advancing_to: null });
    expect(read.advanced_by_seconds).toBeGreaterThan(DAY_S - 60);
    expect(read.advanced_by_seconds).toBeLessThanOrEqual(DAY_S);
    await check(page, 'sandbox-clock-advanced', findings);

    // To the 1st of the next month, 00:00 in Morocco as the service has it (the clock says where; the page announces it).
    const announced = (await clock
      .getByText(/^The 1st of next month is /)
      .locator('time')
      .getAttribute('datetime'))!;
    expect(new Date(announced).toISOString()).toBe(read.next_month_starts_at);
    expect(periodOf(new Date(Date.parse(announced) - 1))).toBe(periodOf(new Date(read.now)));
    expect(periodOf(new Date(announced))).toBe(nextPeriod(periodOf(new Date(read.now))));
    await clock.getByRole('button', { name: 'Advance to the 1st of next month' }).click();
    expect(
      await clock
        .getByRole('group', { name: /^Move the sandbox clock to / })
        .locator('time')
        .getAttribute('datetime'),
    ).toBe(announced);
    await clock.getByRole('button', { name: "Move the team's sandbox clock" }).click();
    await clock.getByText(/^Advancing the clock to /).waitFor();
    await clock.getByText(/^The clock is ready at /).waitFor({ timeout: 60_000 });
    const month = (await api('GET', '/test-helpers/clock', { key: p.test_key })).body;
    expect(month.status).toBe('ready');
    expect(Date.parse(month.now) - Date.parse(announced)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(month.now) - Date.parse(announced)).toBeLessThan(60_000);

    // The line on what moves with the clock links the guide's section.
    const guide = await fetch((await clock.getByRole('link', { name: 'What moves with the clock' }).getAttribute('href'))!);
    expect(guide.status).toBe(200);
    expect(await guide.text()).toContain('id="the-sandbox-clock"');

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 300_000);
});
