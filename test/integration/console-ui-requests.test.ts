import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { signParts } from '../../shared/platform/signature';
import { packs } from './booking-helpers';
import { type AxeFinding, browserForFile, check, openConsole, partnerAdmin, settle, signInUi, visit } from './console-helpers';
import { api, newPartner, secretOf } from './helpers';
import { entriesOf, markersIn, sendMarkerRequests } from './marker-requests';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('the partner console in a real browser: the Requests page', () => {
  const browser = browserForFile();

  it('lists the requests with their filters, and a refused signature shows what the service signed, and the body signed beside the body received', async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    // A live write signed compact and sent with spaces: 401 auth.signature.invalid, in the live log.
    const P = await packs(p.test_key);
    const compact = JSON.stringify({ rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 10), start_time: null, travelers: [{ age: 30 }] });
    const body = compact.replaceAll('":', '": ');
    const [idem, timestamp] = [randomUUID(), String(Math.floor(Date.now() / 1000))];
    const bad = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': idem,
        'x-signature-version': '2',
        'x-timestamp': timestamp,
        'x-signature': signParts(secretOf(p.live_key), { version: '2', timestamp, method: 'POST', pathWithQuery: '/v1/quotes', idempotencyKey: idem }, compact),
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
    // The body the service signed beside the body it received: the same length and hash, the bytes sent (not the compact ones signed).
    const sides = page.getByRole('table', { name: 'The body: signed and received' });
    expect((await sides.getByRole('row', { name: /^SHA-256/ }).innerText()).split(sha(body)).length - 1).toBe(2);
    expect((await sides.getByRole('row', { name: /^Length/ }).innerText()).split(`${Buffer.byteLength(body)} bytes`).length - 1).toBe(2);
    expect(await main.innerText()).not.toContain(sha(compact));
    // The request body is shown (an error), labelled re-serialized beside the length and hash of the bytes received, and the response with the same code.
    const requestBody = page.getByRole('region', { name: 'Request body' });
    await requestBody.waitFor();
    const shown = await requestBody.innerText();
    expect(shown).toContain('Re-serialized and redacted');
    expect(shown).toContain(`${Buffer.byteLength(body)} bytes`);
    expect(shown).toContain(sha(body));
    expect(shown).toContain(P.FLEXIBLE.id);
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

  it("shows none of the 18 marker requests' values (issue 40), in the lists nor on any request's page, in either environment", async () => {
    const p = await newPartner();
    const admin = await partnerAdmin(p);
    const { markers, requests } = await sendMarkerRequests(p);
    await entriesOf(requests);

    const { page, problems } = await openConsole(browser());
    await signInUi(page, admin);
    await settle(page, 'Overview');
    const shown: string[] = [];
    for (const [environment, key] of [
      ['Sandbox', p.test_key],
      ['Live', p.live_key],
    ] as const) {
      await page.getByRole('radio', { name: environment }).check();
      await visit(page, 'requests', 'Requests');
      // The errors only: the console's own requests (all answered 2xx) leave the marker requests on the first page.
      await page.getByLabel('Status').selectOption('4xx');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await settle(page);
      const mine = requests.filter((r) => r.key === key);
      for (const r of mine) await page.getByRole('link', { name: `Request ${r.id}` }).waitFor();
      shown.push(await page.locator('main').innerText());
      for (const r of mine) {
        await visit(page, `requests/${r.id}`, `Request ${r.id}`);
        await page.getByRole('heading', { level: 2, name: 'Response body' }).waitFor();
        shown.push(await page.locator('main').innerText());
      }
    }
    expect(shown).toHaveLength(2 + requests.length);
    expect(markersIn(shown.join('\n'), markers), 'markers shown on the Requests page').toEqual([]);
    // What the pages show instead: markers.
    expect(shown.join('\n')).toMatch(/\[personal \d+ bytes sha256:[0-9a-f]{8}\]/);
    expect(problems).toEqual([]);
  });
});
