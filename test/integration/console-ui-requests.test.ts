import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { packs } from './booking-helpers';
import { type AxeFinding, browserForFile, check, openConsole, partnerAdmin, settle, signInUi, visit } from './console-helpers';
import { api, newPartner } from './helpers';

describe('the partner console in a real browser: the Requests page', () => {
  const browser = browserForFile();

  it('lists the requests with their filters, and a refused signature shows what the service signed', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    // A live write with a wrong signature: 401 auth.signature.invalid, in the live log.
    const P = await packs(p.test_key);
    const body = JSON.stringify({ rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 10), start_time: null, travelers: [{ age: 30 }] });
    const bad = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
        'x-signature-version': '2',
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-signature': 'cd'.repeat(32),
      },
    });
    expect(bad.status, bad.text).toBe(401);
    const badId = bad.headers.get('x-request-id')!;

    const { page, problems } = await openConsole(browser());
    const findings: AxeFinding[] = [];
    await signInUi(page, admin);
    await settle(page, 'Overview');
    await page.getByRole('radio', { name: 'Live' }).check();
    await visit(page, 'requests', 'Requests');
    await check(page, 'requests', findings);

    // Filtered on the code: the refusal (the log is written a few seconds after the request: apply again until it shows).
    await page.getByLabel('Error code').fill('auth.signature.invalid');
    const link = page.getByRole('link', { name: `Request ${badId}` });
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Apply filters' }).click();
          await settle(page);
          return link.count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    const rows = page.getByRole('row').filter({ hasText: 'POST' });
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('401');
    await check(page, 'requests-filtered', findings);

    await link.click();
    await settle(page, `Request ${badId}`);
    const main = page.locator('main');
    await page.getByRole('heading', { level: 2, name: 'Signature diagnostics' }).waitFor();
    const diagnostics = page.getByRole('table', { name: 'What the service signed, part by part' });
    expect(await diagnostics.getByRole('row', { name: /^string_to_sign/ }).innerText()).toContain(bad.body.details.string_to_sign.split('\n')[0]);
    expect(await diagnostics.getByRole('row', { name: /^body_sha256/ }).innerText()).toContain(bad.body.details.body_sha256);
    expect(await main.innerText()).toContain('auth.signature.invalid');
    // The request body is shown (an error), and the response with the same code.
    await page.getByRole('heading', { level: 2, name: 'Request body' }).waitFor();
    expect(await main.innerText()).toContain(P.FLEXIBLE.id);
    await check(page, 'request-signature-failure', findings);

    // A status filter that matches nothing says so.
    await visit(page, 'requests', 'Requests');
    await page.getByLabel('Status').selectOption('5xx');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await settle(page);
    await page.getByText('No requests match.').waitFor();

    expect(findings).toEqual([]);
    expect(problems).toEqual([]);
  });
});
