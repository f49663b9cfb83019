import { describe, expect, it } from 'vitest';
import { type AxeFinding, browserForFile, check, openConsole, partnerAdmin, sandboxBooking, settle, signInUi, visit } from './console-helpers';
import { api, newPartner, write } from './helpers';

describe('the partner console in a real browser: renaming keys, the reviews the bank posted', () => {
  const browser = browserForFile();

  it('renames the demo key in place (focus in the form, back on its button after), the list shows the new name without a reload', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);

    await visit(page, 'api-keys', 'API keys');
    const row = page.getByRole('row').filter({ hasText: p.test_key_id });
    await expect.poll(() => row.innerText()).toContain('No name');
    await row.getByRole('button', { name: `Rename key ${p.test_key_id}` }).click();
    const field = row.getByLabel(`New name of key ${p.test_key_id}`);
    await expect.poll(() => field.evaluate((e) => e === e.ownerDocument.activeElement)).toBe(true);
    await check(page, 'api-keys-rename', findings);
    await field.fill('payments-sandbox');
    await row.getByRole('button', { name: 'Save the name' }).click();
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('payments-sandbox');
    expect(await row.innerText()).not.toContain('No name');
    // The form is gone and the focus is back on the row's Rename button, now named after the key's new name.
    await expect.poll(() => row.getByRole('button', { name: 'Rename key payments-sandbox' }).evaluate((e) => e === e.ownerDocument.activeElement)).toBe(true);
    const keys = (await api('GET', '/api-keys', { key: p.test_key })).body.data as { id: string; name: string | null }[];
    expect(keys.find((k) => k.id === p.test_key_id)?.name).toBe('payments-sandbox');
    await check(page, 'api-keys-renamed', findings);

    // Cancel leaves the name as it is.
    await row.getByRole('button', { name: 'Rename key payments-sandbox' }).click();
    await row.getByLabel(`New name of key ${p.test_key_id}`).fill('never-saved');
    await row.getByRole('button', { name: 'Cancel' }).click();
    await settle(page);
    expect(await row.innerText()).toContain('payments-sandbox');
    expect(await row.innerText()).not.toContain('never-saved');

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  });

  it('"Posted by us" finds a review of the bank the moderators hid, without its id', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const booking = await sandboxBooking(p, 25);
    expect((await write('POST', `/test-helpers/bookings/${booking.booking_number}/complete`, p.test_key)).body.status).toBe('COMPLETED');
    const posted = await write('POST', '/reviews', p.test_key, {
      booking_number: booking.booking_number,
      reviewable_type: 'AGENCY',
      rating: 2,
      title: 'Our hidden review',
      comment: 'The guide never showed up at the meeting point.',
    });
    expect(posted.status, posted.text).toBe(201);
    expect((await write('POST', `/test-helpers/reviews/${posted.body.id}/moderate`, p.test_key, { action: 'HIDDEN' })).body.moderation_status).toBe('HIDDEN');

    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    await visit(page, 'reviews', 'Reviews');
    const card = page.getByRole('article').filter({ hasText: posted.body.id });
    expect(await card.count()).toBe(0);
    await page.getByRole('checkbox', { name: /Posted by us/ }).check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await settle(page);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain('Our hidden review');
    expect(await card.innerText()).toContain('HIDDEN');
    expect(await page.getByRole('article').count()).toBe(1);
    await check(page, 'reviews-posted-by-us', findings);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  });
});
