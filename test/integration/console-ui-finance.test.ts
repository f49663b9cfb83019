import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ledgerLines, stageDraft } from '../../bench/ledger';
import { periodOf, previousPeriod } from '../../shared/settlements/period';
import {
  type AxeFinding,
  browserForFile,
  check,
  editPageSession,
  freshCode,
  invitationPassword,
  openConsole,
  pageSession,
  partnerAdmin,
  resign,
  sandboxBooking,
  settle,
  signInUi,
  visit,
} from './console-helpers';
import { admin, baseUrl, newPartner, stackRuntime, testDb, write } from './helpers';

/** The bytes the API answers for a document, fetched with the partner's sandbox key. */
async function apiBytes(path: string, key: string) {
  const res = await fetch(`${baseUrl()}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Clicks a download button and returns the file's name and bytes as the browser saved them (or the error the page shows). */
async function downloadOf(page: Page, button: string) {
  const saved = page.waitForEvent('download', { timeout: 60_000 });
  await page.getByRole('button', { name: button }).click();
  const alert = page
    .locator('.download')
    .filter({ has: page.getByRole('button', { name: button }) })
    .getByRole('alert');
  const refused = alert.waitFor({ timeout: 60_000 }).then(async () => {
    throw new Error(`the download failed: ${await alert.innerText()}`);
  });
  refused.catch(() => undefined);
  const download = await Promise.race([saved, refused]);
  return { name: download.suggestedFilename(), bytes: readFileSync((await download.path())!) };
}

describe('the partner console in a real browser: invitation and finance', () => {
  const browser = browserForFile();

  it("an admin invites a FINANCE member, who signs in with the e-mailed password, sets a new one, enrols TOTP and downloads a settlement's invoice and statement, byte for byte the API's", async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    await sandboxBooking(p);
    const run = await write('POST', '/test-helpers/settlements/run', p.test_key);
    const settlement = run.body.data[0] as { id: string; number: string };
    expect(settlement.number).toMatch(/^TEST-/);

    const findings: AxeFinding[] = [];
    const adminTab = await openConsole(browser());
    await signInUi(adminTab.page, admin);
    await visit(adminTab.page, 'team', 'Team');
    await adminTab.page.getByRole('button', { name: 'Switch to Live to manage the team' }).click();
    await settle(adminTab.page, 'Team');
    const email = `finance-${randomUUID().slice(0, 8)}@bank.example`;
    await adminTab.page.getByLabel('E-mail').fill(email);
    await adminTab.page.getByLabel('First name').fill('Nadia');
    await adminTab.page.getByLabel('Last name').fill('Benali');
    await adminTab.page.getByLabel('Role', { exact: true }).selectOption('FINANCE');
    await check(adminTab.page, 'team-invite', findings);
    await adminTab.page.getByRole('button', { name: 'Send the invitation', exact: true }).click();
    await adminTab.page.getByText(`Invitation sent to ${email}`).waitFor({ timeout: 20_000 });
    const row = adminTab.page.getByRole('row').filter({ hasText: email });
    await expect.poll(() => row.innerText()).toMatch(/Finance[\s\S]*INVITED/);
    await check(adminTab.page, 'team', findings);
    // The API's refusals, in its words, next to the action: the same address again.
    await adminTab.page.getByLabel('E-mail').fill(email);
    await adminTab.page.getByLabel('First name').fill('Nadia');
    await adminTab.page.getByLabel('Last name').fill('Benali');
    await adminTab.page.getByRole('button', { name: 'Send the invitation', exact: true }).click();
    await adminTab.page.getByRole('alert').getByText(`${email} is already a member of your team.`).waitFor({ timeout: 20_000 });
    await adminTab.page.getByRole('alert').getByText('Code team.member.exists').waitFor();
    await check(adminTab.page, 'team-invite-refused', findings);

    // The member: the temporary password of the e-mail, a new password, an authenticator.
    const member = { email, password: await invitationPassword(email) };
    const tab = await openConsole(browser());
    const steps: string[] = [];
    await signInUi(tab.page, member, async (step) => {
      steps.push(step);
      if (step !== 'sign-in') await check(tab.page, `invitee-${step}`, findings);
    });
    expect(steps).toEqual(['sign-in', 'new-password', 'mfa-setup']);
    expect(await tab.page.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts()).toEqual([
      'Overview',
      'Bookings',
      'Settlements',
      'Sandbox tools',
    ]);

    await visit(tab.page, 'settlements', 'Settlements');
    await tab.page.getByRole('link', { name: settlement.number }).click();
    await settle(tab.page, `Settlement ${settlement.number}`);
    await check(tab.page, 'finance-settlement', findings);
    const pdf = await downloadOf(tab.page, 'Download the invoice (PDF)');
    const csv = await downloadOf(tab.page, 'Download the statement (CSV)');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.bytes.equals(await apiBytes(`/settlements/${settlement.id}/invoice.pdf`, p.test_key))).toBe(true);
    expect(csv.bytes.equals(await apiBytes(`/settlements/${settlement.id}/statement.csv`, p.test_key))).toBe(true);
    expect(pdf.name).toMatch(/\.pdf$/);
    expect(csv.name).toMatch(/\.csv$/);
    await tab.page.getByText(`Saved ${csv.name}.`).waitFor();

    // The admin sees the member ACTIVE now.
    await adminTab.page.reload();
    await settle(adminTab.page, 'Team');
    await expect.poll(() => adminTab.page.getByRole('row').filter({ hasText: email }).innerText()).toContain('ACTIVE');

    expect(adminTab.problems).toEqual([]);
    expect(tab.problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 300_000);

  it('a live write 15 minutes after the sign-in asks for the password and a code, then goes through with the same Idempotency-Key', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { page, problems, apiCalls } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    // Stage a sign-in 20 minutes old: the token as the local Cognito would have signed it then.
    const session = (await pageSession(page))!;
    const old = await resign(session.accessToken, { auth_time: Math.floor(Date.now() / 1000) - 20 * 60 });
    await editPageSession(page, { accessToken: old });
    await page.reload();
    await settle(page, 'Overview');

    await page.getByRole('radio', { name: 'Live' }).check();
    await visit(page, 'webhooks', 'Webhooks');
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    await page.getByLabel('URL (HTTPS, on a public address)').fill('http://127.0.0.1:9/live-after-reauth');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();

    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    await check(page, 'reauthentication', findings);
    await dialog.getByLabel('Password').fill(admin.password);
    await dialog.getByLabel('6-digit code').fill(await freshCode(admin.totpSecret!));
    await dialog.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByTestId('secret').waitFor({ timeout: 20_000 });
    expect(await dialog.isVisible()).toBe(false);

    const posts = apiCalls.filter((c) => c.method === 'POST' && c.path === '/v1/webhooks');
    expect(posts).toHaveLength(2);
    expect(posts.every((c) => c.environment === 'live')).toBe(true);
    expect(posts[0]!.idempotencyKey).toBeTruthy();
    expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
    // The new sign-in is recent: the session now carries a fresh token.
    expect((await pageSession(page))!.accessToken).not.toBe(old);

    expect(problems).toEqual([]);
    expect(findings).toEqual([]);
  }, 300_000);

  it("downloads a statement over the inline limit through the 303 to S3, as in AWS (S3 CORS, a tainted origin), byte for byte the API's", async () => {
    const p = await newPartner();
    const member = await partnerAdmin(p);
    // A 4.4 MB statement from as few lines as the API allows (9 000: seeding DynamoDB Local is the slow part): last
    // month's bookings, whose adventure has a 145-character title in Tifinagh (3 bytes a letter in UTF-8; the catalog
    // takes 150) and whose partner reference has 64 characters (the most the API takes).
    const period = previousPeriod(periodOf(new Date()));
    const lines = ledgerLines(9_000, period, {
      titles: [
        'ⴰⵙⵉⴽⵍ ⵏ ⴽⵕⴰⴹ ⵡⵓⵙⵙⴰⵏ ⴳ ⵓⴷⵔⴰⵔ ⴰⵎⵇⵔⴰⵏ ⵙⴳ ⵉⵎⵍⵉⵍ: ⴰⵏⵙⵉ ⴳ ⵜⴰⴷⴷⴰⵔⵜ ⵜⴰⵎⴰⵣⵉⵖⵜ, ⵉⵎⵏⵙⵉ ⴷ ⵉⵎⵣⴷⴰⵖ, ⴰⵙⴰⵔⵓ ⵏ ⵜⵓⴱⵇⴰⵍ ⴳ ⵜⵉⴼⴰⵡⵜ ⴷ ⵓⵖⵓⵍ ⵙ ⵎⵕⵕⴰⴽⵛ ⵙ ⵜⵎⵓⵜⵓⵔⵜ ⵏ ⵜⴰⴳⵍⴷⵉⵜ',
      ],
      reference: (i) => `BNK-${period}-${String(i).padStart(6, '0')}-${randomUUID().replaceAll('-', '')}`.padEnd(64, '0'),
    });
    const { ddb, dataTable } = testDb();
    await stageDraft({ client: ddb, name: () => dataTable }, p.partner_id, 'test', period, lines);
    // Issued by the monthly job as the settlement worker runs it (the sandbox helper's route has API Gateway's 30 s).
    const run = await admin(['settlement:run', '--partner', p.partner_id, '--env', 'test', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const settlement = run.json.tenants[0].settlements[0] as { id: string; number: string };
    const path = `/settlements/${settlement.id}/statement.csv`;

    // Too large to answer inline: the API answers a 303 to a presigned GET on the local S3.
    const s3 = new URL(stackRuntime().env.AWS_ENDPOINT_URL_S3!).origin;
    const link = await fetch(`${baseUrl()}${path}`, { headers: { authorization: `Bearer ${p.test_key}` }, redirect: 'manual' });
    expect(link.status).toBe(303);
    expect(new URL(link.headers.get('location')!).origin).toBe(s3);
    const served = await apiBytes(path, p.test_key);
    expect(served.length).toBeGreaterThan(4 * 1024 * 1024);

    const { page, problems } = await openConsole(browser());
    const toS3: Promise<Record<string, string>>[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${s3}/`)) toS3.push(r.allHeaders());
    });
    await signInUi(page, member);
    await visit(page, `settlements/${settlement.id}`, `Settlement ${settlement.number}`);
    const csv = await downloadOf(page, 'Download the statement (CSV)');
    expect(csv.bytes.equals(served)).toBe(true);
    expect(csv.name).toBe(`statement-${settlement.number}.csv`);
    // The console's fetch went from its origin to the API's, then to S3's: the browser sent it with Origin: null and
    // without the session's token, as it does in AWS, and the bucket's CORS rule (a preflight for X-Environment) let it read.
    const [headers, ...more] = await Promise.all(toS3);
    expect(more).toEqual([]);
    expect(headers).toMatchObject({ origin: 'null', 'x-environment': 'sandbox' });
    expect(headers).not.toHaveProperty('authorization');
    expect(problems).toEqual([]);
  }, 600_000);
});
