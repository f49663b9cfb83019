import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launch } from './console-helpers';
import { baseUrl } from './helpers';

const OUTPUT = resolve(import.meta.dirname, '..', '..', 'test-output');
// The page's own function, run in the browser (the tests compile without the DOM library).
declare const getComputedStyle: (el: unknown) => { fontFamily: string };

describe('GET /v1/docs in a real browser', () => {
  it('renders the operations, their error codes and the webhook events, loading nothing from another origin', async () => {
    const origin = new URL(baseUrl()).origin;
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const external: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
        external.push(url);
        return route.abort();
      });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const res = await page.goto(`${baseUrl()}/docs`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-type']).toContain('text/html');

      // The bookings operations, rendered by Redoc's script in the menu.
      await page.getByRole('link', { name: 'Bookings', exact: true }).first().click();
      for (const summary of [
        "Book a quote with the bank's signed payment confirmation",
        'Your bookings, most recent first',
        'One booking with full traveler details',
        'Refund preview before cancelling',
        'Cancel a booking',
      ]) {
        await page.getByText(summary, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
      }
      // The operation's page, with its request example and its error responses listing their codes.
      await page.getByText("Book a quote with the bank's signed payment confirmation", { exact: true }).first().click();
      await page.getByRole('heading', { name: "Book a quote with the bank's signed payment confirmation" }).first().waitFor({ timeout: 30_000 });
      await page.getByText('BANK-2026-000123').first().waitFor({ timeout: 10_000 });
      // Each error response's sample carries its first code (the response descriptions list them all).
      for (const [status, code] of [
        ['422', 'booking.travelers.mismatch'],
        ['409', 'idempotency.key.reused'],
        ['429', 'rate_limit.exceeded'],
      ] as const) {
        await page
          .getByRole('button', { name: new RegExp(`^${status}\\b`) })
          .first()
          .click();
        await expect.poll(() => page.locator('body').innerText(), { timeout: 10_000 }).toContain(code);
      }

      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'docs-reference.png') });

      // The document's webhooks: every event type under Webhook events, one with its headers and payload.
      await page.getByRole('link', { name: 'Webhook events', exact: true }).first().click();
      for (const summary of [
        'A booking was confirmed',
        'A booking was cancelled',
        'A booking was completed',
        'An adventure, rate pack or slot stopped being sellable',
      ]) {
        await page.getByText(summary, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
      }
      await page.getByText('A booking was cancelled', { exact: true }).first().click();
      await page.getByRole('heading', { name: 'A booking was cancelled' }).first().waitFor({ timeout: 30_000 });
      for (const shown of ['X-Service-Signature-Previous', 'webhook-timestamp', 'cancelled_by', '"booking.cancelled"'])
        await expect.poll(() => page.locator('body').innerText(), { timeout: 10_000 }).toContain(shown);
      await page.screenshot({ path: join(OUTPUT, 'docs-webhooks.png') });
      expect(external).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('links a tag to its guide, whose pages link each other and load nothing from another origin', async () => {
    const origin = new URL(baseUrl()).origin;
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const external: string[] = [];
      const documents: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (route.request().resourceType() === 'document') documents.push(url);
        if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
        external.push(url);
        return route.abort();
      });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      expect((await page.goto(`${baseUrl()}/docs`, { waitUntil: 'load' }))?.status()).toBe(200);

      // The Team tag's description ends with its guide (authentication, docs/guides/authentication.md).
      await page.getByRole('link', { name: 'Team', exact: true }).first().click();
      const tagLink = page.locator('a[href="docs/guides/authentication"]').first();
      await tagLink.waitFor({ state: 'visible', timeout: 30_000 });
      // The guide's own title (its first heading) names the link and heads its page. Redoc fills the link's text
      // after it shows the element, so the text is awaited rather than read once.
      const title = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'guides', 'authentication.md'), 'utf8')
        .split('\n')[0]!
        .replace(/^# /, '');
      await expect.poll(async () => (await tagLink.textContent())?.trim()).toBe(title);
      await tagLink.scrollIntoViewIfNeeded();
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'docs-reference-guide-link.png') });
      const [guide] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), tagLink.click()]);
      expect(guide?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe('/v1/docs/guides/authentication');
      expect(guide?.headers()['content-security-policy']).toContain("default-src 'none'");
      await expect.poll(() => page.locator('main h1').first().innerText()).toBe(title);
      expect(await page.locator('script').count()).toBe(0);
      // Code blocks keep their lines, in a monospace font.
      const code = page.locator('main pre code').first();
      expect(await code.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono|Menlo|Consolas/i);
      await page.screenshot({ path: join(OUTPUT, 'docs-guide.png') });

      // A link of the guide's text to another guide (the side navigation's when the text has none) opens its page.
      const guideHref = /^[a-z0-9-]+(#[\w-]+)?$/;
      const hrefsIn = (scope: string) => page.locator(`${scope} a[href]`).evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      const inText = (await hrefsIn('main')).find((h) => guideHref.test(h));
      const href = inText ?? (await hrefsIn('nav ul')).find((h) => guideHref.test(h) && h !== 'authentication');
      expect(href, 'a link to another guide').toBeDefined();
      const other = page.locator(`${inText ? 'main' : 'nav ul'} a[href="${href}"]`).first();
      const [next] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), other.click()]);
      expect(next?.status()).toBe(200);
      const [name, fragment] = href!.split('#');
      expect(new URL(page.url()).pathname).toBe(`/v1/docs/guides/${name}`);
      await page.locator('main h1').first().waitFor();
      if (fragment) expect(await page.locator(`[id="${fragment}"]`).count(), `#${fragment} on ${name}`).toBe(1);
      await page.screenshot({ path: join(OUTPUT, 'docs-guide-linked.png') });

      // The navigation leads to the index of the guides and back to the reference.
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('nav a.home').click()]);
      expect(new URL(page.url()).pathname).toBe('/v1/docs/guides');
      await page.locator('main a[href="guides/authentication"], nav a[href="guides/authentication"]').first().waitFor();
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('nav a.reference').click()]);
      expect(new URL(page.url()).pathname).toBe('/v1/docs');

      expect(documents.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
      expect(external).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('answers 404 resource.not_found for a guide that does not exist', async () => {
    const res = await fetch(`${baseUrl()}/docs/guides/no-such-guide`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('resource.not_found');
  });
});
