import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launch } from './console-helpers';
import { baseUrl } from './helpers';

const OUTPUT = resolve(import.meta.dirname, '..', '..', 'test-output');

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
});
