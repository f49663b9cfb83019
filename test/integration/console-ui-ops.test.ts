import { describe, expect, it } from 'vitest';
import { DATE_TIME_OPTIONS } from '../../console/src/time';
import { type AxeFinding, browserForFile, check, openConsole, partnerAdmin, sandboxBooking, settle, signInUi, visit } from './console-helpers';
import { api, newPartner, write } from './helpers';

/** An amount as the console shows it: thousands grouped by a narrow no-break space, a no-break space before MAD (as the PDF prints it). */
const shownMoney = (amount: string) => `${amount.replace(/\B(?=(\d{3})+\.)/g, '\u202f')}\u00a0MAD`;

/** A reader in Tokyo (no daylight saving time: always GMT+9) with British English. */
const READER = { locale: 'en-GB', timezoneId: 'Asia/Tokyo' };
/** What the console shows of an instant for that reader: the time in the reader's zone, the zone named. */
const shown = (iso: string) => new Intl.DateTimeFormat('en-GB', { ...DATE_TIME_OPTIONS, timeZone: 'Asia/Tokyo' }).format(new Date(iso));

describe('the partner console in a real browser: the operations pages (bookings, settlements) and their times', () => {
  const browser = browserForFile();

  it('Bookings: the adventure by its title, a booking found by your reference and opened by its number, times with their zone', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const b1 = await sandboxBooking(p);
    const b2 = await sandboxBooking(p, 21);
    const one = (await api('GET', `/bookings/${b1.booking_number}`, { key: p.test_key })).body;
    const findings: AxeFinding[] = [];
    const { page, problems } = await openConsole(browser(), READER);
    await signInUi(page, admin);
    await visit(page, 'bookings', 'Bookings');

    const row = page.getByRole('row').filter({ hasText: b1.booking_number });
    const text = await row.innerText();
    expect(text).toContain(one.adventure.title);
    expect(text).not.toContain(one.adventure.slug);
    expect(shown(one.created_at)).toMatch(/GMT\+9$/);
    expect(await row.locator('time[title]').innerText()).toBe(shown(one.created_at));
    await check(page, 'ops-bookings', findings);

    await page.getByLabel('Your reference').fill(b1.partner_reference);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const bodyRows = page.locator('tbody tr');
    await settle(page);
    await expect.poll(() => bodyRows.count(), { timeout: 20_000 }).toBe(1);
    expect(await bodyRows.innerText()).toContain(b1.booking_number);

    await page.getByLabel('Booking number').fill(b2.booking_number.toLowerCase());
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await settle(page, `Booking ${b2.booking_number}`);
    const two = (await api('GET', `/bookings/${b2.booking_number}`, { key: p.test_key })).body;
    expect(await page.locator('dd time[title]').first().innerText()).toBe(shown(two.created_at));
    expect(await page.locator('dd time[title]').first().getAttribute('title')).toBe(`${two.created_at} (shown in Asia/Tokyo)`);
    await check(page, 'ops-booking', findings);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 180_000);

  it('Settlements: the detail shows its lines, totals and payment instructions, without the CSV', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const booked = [await sandboxBooking(p), await sandboxBooking(p, 21), await sandboxBooking(p, 22)];
    const run = await write('POST', '/test-helpers/settlements/run', p.test_key);
    expect(run.status, run.text).toBe(200);
    const s = run.body.data[0];
    const lines = (await api('GET', `/settlements/${s.id}/lines`, { key: p.test_key })).body.data;
    const findings: AxeFinding[] = [];
    const { page, problems } = await openConsole(browser(), READER);
    await signInUi(page, admin);
    await visit(page, 'settlements', 'Settlements');
    await page.getByRole('link', { name: s.number }).click();
    await settle(page, `Settlement ${s.number}`);

    const pay = page.getByRole('region', { name: 'Payment instructions' });
    const payText = await pay.innerText();
    expect(payText).toContain('Test mode: make no transfer.');
    expect(payText).toContain(shownMoney(s.total_due.amount));
    // Test mode: no transfer, so no account to pay (as on its PDF).
    expect(payText).not.toContain(s.payment_instructions.rib);
    expect(payText).toContain(s.payment_instructions.bank);
    expect(payText).toContain(s.payment_instructions.beneficiary);
    expect(await pay.getByRole('definition').filter({ hasText: s.number }).count()).toBe(1);

    const table = page.getByRole('table', { name: 'Lines of the settlement, 3 in all' });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    for (const b of booked) {
      const r = rows.filter({ hasText: b.booking_number });
      const l = lines.find((x: { booking_number: string }) => x.booking_number === b.booking_number);
      const t = await r.innerText();
      expect(t).toContain(b.partner_reference);
      expect(t).toContain(l.adventure);
      expect(t).toContain(shownMoney(l.amount.amount));
      expect(await r.locator('time[title]').innerText()).toBe(shown(l.confirmed_at));
    }
    expect(await page.getByRole('region', { name: 'Lines', exact: true }).innerText()).toContain(`3 lines totalling ${shownMoney(s.total_due.amount)}`);
    await check(page, 'ops-settlement', findings);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 180_000);

  it('Reviews: each review says which adventure, trip or agency it is about', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const b = await sandboxBooking(p);
    expect((await write('POST', `/test-helpers/bookings/${b.booking_number}/complete`, p.test_key)).status).toBe(200);
    const posted = await write('POST', '/reviews', p.test_key, {
      booking_number: b.booking_number,
      reviewable_type: 'AGENCY',
      rating: 5,
      comment: 'Well organised from the first message to the last.',
    });
    expect(posted.status, posted.text).toBe(201);
    const findings: AxeFinding[] = [];
    const { page, problems } = await openConsole(browser(), READER);
    await signInUi(page, admin);
    await visit(page, 'reviews', 'Reviews');
    const cards = page.locator('ul.cards article');
    expect(await cards.count()).toBeGreaterThan(0);
    for (const text of await cards.allInnerTexts()) expect(text).toMatch(/About the (experience|trip|agency) \S/);
    expect(await cards.first().locator('time[title]').first().innerText()).toMatch(/GMT\+9$/);

    await page.getByLabel('Review id').fill(posted.body.id);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    const found = page
      .getByRole('region', { name: 'Find a review by its id' })
      .getByRole('article', { name: `Review by ${posted.body.author_name} of ${posted.body.reviewable_name}` });
    await found.waitFor();
    expect(await found.innerText()).toContain(`About the agency ${posted.body.reviewable_name}`);
    await check(page, 'ops-reviews', findings);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 180_000);
});
