import { describe, expect, it } from 'vitest';
import {
  type AxeFinding,
  browserForFile,
  check,
  clientId,
  clipboardText,
  cognito,
  consoleUrl,
  editPageSession,
  openConsole,
  pageSession,
  partnerAdmin,
  sandboxBooking,
  settle,
  signInUi,
  visit,
} from './console-helpers';
import { api, newPartner, write } from './helpers';

describe('the partner console in a real browser: an administrator', () => {
  const browser = browserForFile();

  it('signs in, enrolling TOTP from the key shown as text; issues an API key shown once that works on /v1/me; revokes it; signs out', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];

    await signInUi(page, admin, (step) => check(page, `sign-in-${step}`, findings));
    expect(admin.totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
    await settle(page, 'Overview');
    await expect.poll(() => page.locator('main').innerText()).toContain(admin.email);
    // The limit is per key (and per member's session), never one count for the partner.
    await expect
      .poll(() => page.locator('main').innerText())
      .toMatch(/requests a minute for each API key, and for each member's console session, each counted on its own/);
    expect(await page.locator('main').innerText()).not.toContain('for your partner in this environment');
    await check(page, 'overview', findings);

    await visit(page, 'api-keys', 'API keys');
    await page.getByLabel('Name (the system that will hold it)').fill('payments-prod-eu1');
    await page.getByRole('button', { name: 'Issue the key' }).click();
    const secret = page.getByTestId('secret');
    await secret.waitFor();
    const key = (await secret.innerText()).trim();
    expect(key).toMatch(/^sk_test_[a-z0-9]{12}_\S+$/);
    await check(page, 'api-keys-secret-once', findings);
    // The copy button puts exactly the key on the clipboard.
    await page.getByRole('button', { name: 'Copy the secret' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await clipboardText(page)).toBe(key);

    // The key works, as the member it was issued for.
    const me = await api('GET', '/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.member.id).toBe(admin.memberId);
    expect(me.body.key.id).toBe(key.split('_')[2]);

    // Shown once: gone when dismissed, and nowhere after a reload.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => secret.count()).toBe(0);
    await page.reload();
    await settle(page, 'API keys');
    expect(await page.content()).not.toContain(key.split('_')[3]);
    const keyId = key.split('_')[2]!;
    const row = page.getByRole('row').filter({ hasText: keyId });
    await expect.poll(() => row.innerText()).toContain('ACTIVE');
    // Named, and used (the /v1/me call above): staff see which system holds it and that it is in use.
    expect(await row.innerText()).toContain('payments-prod-eu1');
    expect(await page.locator('main').innerText()).not.toContain('not reported');
    const used = await row.locator('time').last().getAttribute('datetime');
    expect(Date.now() - Date.parse(used!)).toBeLessThan(5 * 60_000);
    await check(page, 'api-keys', findings);

    await row.getByRole('button', { name: 'Revoke payments-prod-eu1' }).click();
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('REVOKED');
    expect((await api('GET', '/me', { key })).status).toBe(401);

    // Sign out: back at the sign-in page, and the session cannot be renewed (GlobalSignOut revoked its refresh token).
    const { refreshToken } = (await pageSession(page))!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByText('You are signed out.').waitFor();
    expect(await pageSession(page)).toBeNull();
    const renewed = await cognito('InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: await clientId(),
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    });
    expect(renewed.status).toBe(400);
    expect(renewed.body.__type).toContain('NotAuthorizedException');

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 240_000);

  it('keeps sandbox and live apart: each environment shows only its own data, and every request names the environment shown', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const booking = await sandboxBooking(p);
    const sandboxHook = 'http://127.0.0.1:9/sandbox-hooks';
    const liveHook = 'http://127.0.0.1:9/live-hooks';
    expect((await write('POST', '/webhooks', p.test_key, { url: sandboxHook, event_types: ['booking.confirmed'] })).status).toBe(201);
    expect((await write('POST', '/webhooks', p.live_key, { url: liveHook, event_types: ['booking.confirmed'] })).status).toBe(201);

    const { page, problems, apiCalls } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    await page.getByText('Sandbox: you are viewing test data').waitFor();

    // By keyboard: the first Tab of a page reaches the skip link, which moves the focus to the page without changing the route.
    await visit(page, 'overview', 'Overview');
    await page.reload();
    await settle(page, 'Overview');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').innerText()).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    expect(await page.locator(':focus').getAttribute('id')).toBe('main');
    expect(new URL(page.url()).hash).toBe('#/overview');

    await visit(page, 'webhooks', 'Webhooks');
    await page.getByText(sandboxHook).waitFor();
    expect(await page.getByText(liveHook).count()).toBe(0);
    await visit(page, `bookings/${booking.booking_number}`, `Booking ${booking.booking_number}`);
    await page.getByText(booking.partner_reference).first().waitFor();

    // Switching on a booking's page: back to the list of the other environment, nothing of the sandbox left on screen.
    const switchedAt = apiCalls.length;
    // The switch is a radio group: arrow keys move it.
    await page.getByRole('radio', { name: 'Sandbox' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('radio', { name: 'Live' }).isChecked()).toBe(true);
    expect(await page.getByText(booking.booking_number).count()).toBe(0);
    await page.getByRole('heading', { level: 1, name: 'Bookings' }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/bookings');
    await settle(page);
    await page.getByText('No bookings in live yet', { exact: false }).waitFor();
    expect(await page.getByText(booking.booking_number).count()).toBe(0);
    expect(await page.getByText('Sandbox: you are viewing test data').count()).toBe(0);
    await check(page, 'bookings-live', findings);

    await visit(page, 'webhooks', 'Webhooks');
    await page.getByText(liveHook).waitFor();
    expect(await page.getByText(sandboxHook).count()).toBe(0);
    await visit(page, 'overview', 'Overview');
    await page.getByText('Live (production)').waitFor();
    await check(page, 'overview-live', findings);
    // The sandbox tools are not offered in live.
    expect(await page.getByRole('link', { name: 'Sandbox tools' }).count()).toBe(0);

    const live = apiCalls.slice(switchedAt);
    expect(live.length).toBeGreaterThan(0);
    expect(live.filter((c) => c.environment !== 'live')).toEqual([]);
    expect(apiCalls.slice(0, switchedAt).filter((c) => c.environment !== 'sandbox')).toEqual([]);

    // And back: the sandbox's own data again.
    await page.getByRole('radio', { name: 'Sandbox' }).check();
    await visit(page, 'bookings', 'Bookings');
    await page.getByRole('link', { name: booking.booking_number }).waitFor();
    expect(page.url()).toBe(consoleUrl('bookings'));

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 240_000);

  it('renews an expired access token once with the refresh token, and returns to the sign-in page when it cannot', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems, cognitoCalls } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    const before = (await pageSession(page))!;

    // The access token has expired: the console renews it (REFRESH_TOKEN_AUTH) and goes on.
    await editPageSession(page, { expiresAt: Date.now() - 1_000 });
    await page.reload();
    await settle(page, 'Overview');
    await visit(page, 'bookings', 'Bookings');
    expect(
      cognitoCalls.filter((c) => c === 'InitiateAuth REFRESH_TOKEN_AUTH'),
      cognitoCalls.join(', '),
    ).toHaveLength(1);
    const renewed = (await pageSession(page))!;
    expect(renewed.expiresAt).toBeGreaterThan(Date.now());
    expect(renewed.refreshToken).toBe(before.refreshToken);

    // It has expired and cannot be renewed: back to the sign-in page, saying why.
    await editPageSession(page, { expiresAt: Date.now() - 1_000, refreshToken: 'not-a-refresh-token' });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByText('Your session has ended; sign in again.').waitFor();
    expect(await pageSession(page)).toBeNull();
    await check(page, 'sign-in-session-expired', findings);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 240_000);
});
