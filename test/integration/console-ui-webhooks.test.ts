import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  type AxeFinding,
  browserForFile,
  check,
  consoleUser,
  openConsole,
  sandboxBooking,
  settle,
  signatureOf,
  signInUi,
  startReceiver,
  visit,
} from './console-helpers';
import { api, newPartner, write } from './helpers';

/**
 * The endpoints list's row of a URL as the member reads it, and the number in its Pending cell, reloading until `ok`
 * holds of them (the pending count is read from an index, which lags as in AWS).
 */
async function listRow(page: Page, url: string, ok: (text: string, pending: number) => boolean): Promise<string> {
  const row = () => page.getByRole('row').filter({ hasText: url });
  let text = '';
  await expect
    .poll(
      async () => {
        await page.reload();
        await settle(page, 'Webhooks');
        text = (await row().innerText()).replace(/\s+/g, ' ');
        return ok(text, Number(await row().getByRole('cell').nth(4).innerText()));
      },
      { timeout: 40_000, interval: 300 },
    )
    .toBe(true);
  return text;
}

describe('the partner console in a real browser: webhooks', () => {
  const browser = browserForFile();

  /** A partner whose endpoint answers what `answer.status` says (503 at first), a DEVELOPER of it, and the receiver. */
  async function failingEndpoint() {
    const p = await newPartner();
    const dev = await consoleUser(p, 'DEVELOPER');
    const answer = { status: 503 };
    const receiver = await startReceiver(() => answer.status);
    const hook = (await write('POST', '/webhooks', p.test_key, { url: receiver.url, event_types: ['booking.confirmed'] })).body;
    return { p, dev, answer, receiver, hook };
  }

  const noPending = (key: string, endpointId: string) =>
    expect
      .poll(async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${endpointId}&status=PENDING`, { key })).body.data.length, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(0);

  it('lists a failing endpoint as failing, since when, with its last answer and its pending deliveries while its retries wait', async () => {
    const { p, dev, receiver } = await failingEndpoint();
    try {
      const { page, problems } = await openConsole(browser());
      const findings: AxeFinding[] = [];
      await signInUi(page, dev);
      await visit(page, 'webhooks', 'Webhooks');
      // Booked once signed in: a delivery's retries wait seconds at the tests' scale.
      await sandboxBooking(p);
      await sandboxBooking(p);
      // While they wait, the list says failing, since when, what it answered and how many deliveries wait.
      const failing = await listRow(
        page,
        receiver.url,
        (t, pending) => t.includes('FAILING') && t.includes('HTTP 503') && t.includes('failing since') && pending > 0,
      );
      expect(failing).not.toContain('ACTIVE');
      await check(page, 'webhooks-failing', findings);

      expect(problems).toEqual([]);
      expect(findings).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("re-sends what failed from the endpoint's page, since its failure streak began; the list then shows it healthy", async () => {
    const { p, dev, answer, receiver, hook } = await failingEndpoint();
    try {
      await sandboxBooking(p);
      await sandboxBooking(p);
      const { page, problems } = await openConsole(browser());
      const findings: AxeFinding[] = [];
      await signInUi(page, dev);
      // Every retry spent: nothing pending, both deliveries FAILED; the endpoint is still failing.
      await noPending(p.test_key, hook.id);
      await visit(page, 'webhooks', 'Webhooks');
      await listRow(page, receiver.url, (t, pending) => t.includes('FAILING') && pending === 0);

      // The receiver is fixed: recover from the endpoint's page, since its failure streak began (the field's default).
      answer.status = 200;
      const before = receiver.received.length;
      await visit(page, `webhooks/${hook.id}`, 'Webhook endpoint');
      await page
        .getByText(/^failing since/)
        .first()
        .waitFor();
      expect(await page.getByLabel('Failed since (your time zone)').inputValue()).not.toBe('');
      await check(page, 'webhook-failing', findings);
      await page.getByRole('button', { name: 'Re-send failed deliveries' }).click();
      await page.getByText('2 event(s) re-sent, 0 waiting retries attempted now.').waitFor({ timeout: 30_000 });
      await expect.poll(() => receiver.received.length - before, { timeout: 30_000 }).toBe(2);
      await check(page, 'webhook-recovered', findings);
      await visit(page, 'webhooks', 'Webhooks');
      const healthy = await listRow(page, receiver.url, (t) => t.includes('ACTIVE') && t.includes('HTTP 200'));
      expect(healthy).not.toMatch(/failing/i);

      expect(problems).toEqual([]);
      expect(findings).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('rotates the signing secret with a chosen overlap: the new secret shown once signs, the previous one signs beside it; while open, only a revocation is offered', async () => {
    const p = await newPartner();
    const dev = await consoleUser(p, 'DEVELOPER');
    const receiver = await startReceiver();
    try {
      const hook = (await write('POST', '/webhooks', p.test_key, { url: receiver.url, event_types: ['booking.confirmed'] })).body;
      const { page, problems } = await openConsole(browser());
      const findings: AxeFinding[] = [];
      await signInUi(page, dev);
      await visit(page, `webhooks/${hook.id}`, 'Webhook endpoint');
      await page.getByLabel('Overlap').selectOption({ label: '1 hour' });
      await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
      await page.getByRole('button', { name: 'Rotate', exact: true }).click();
      const secret = (await page.getByTestId('secret').innerText()).trim();
      expect(secret).not.toBe(hook.signing_secret);
      await check(page, 'webhook-rotated-secret-once', findings);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      expect(await page.content()).not.toContain(secret);

      await page.getByText('A rotation is open').waitFor();
      expect(await page.getByLabel('Overlap').locator('option').allInnerTexts()).toEqual(['None: the current secret stops signing now (after a leak)']);
      await check(page, 'webhook-rotation-open', findings);

      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByText(/^Delivered: HTTP 200 in \d+ ms\./).waitFor({ timeout: 30_000 });
      const d = receiver.received.at(-1)!;
      expect(d.headers['x-service-signature']).toBe(signatureOf(hook.signing_secret, d.raw));
      expect(d.headers['x-service-signature-next']).toBe(signatureOf(secret, d.raw));

      expect(problems).toEqual([]);
      expect(findings).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('does not offer Replay for a delivery whose endpoint was deleted, and says so', async () => {
    const p = await newPartner();
    const dev = await consoleUser(p, 'DEVELOPER');
    const receiver = await startReceiver();
    try {
      const hook = (await write('POST', '/webhooks', p.test_key, { url: receiver.url, event_types: ['booking.confirmed'] })).body;
      const sent = await write('POST', `/webhooks/${hook.id}/test`, p.test_key, { event_type: 'booking.confirmed' });
      expect(sent.status, sent.text).toBe(200);
      const { page, problems } = await openConsole(browser());
      const findings: AxeFinding[] = [];
      await signInUi(page, dev);
      await visit(page, `webhooks/deliveries/${sent.body.delivery_id}`, /^Delivery /);
      await page.getByRole('button', { name: 'Replay the delivery' }).waitFor();

      expect((await write('DELETE', `/webhooks/${hook.id}`, p.test_key)).status).toBe(200);
      // Opened afresh, as a member who comes to the delivery later does.
      await page.reload();
      await settle(page, /^Delivery /);
      await page.getByText('The endpoint of this delivery was deleted: there is nothing to replay it to.').waitFor();
      expect(await page.getByRole('button', { name: 'Replay the delivery' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: receiver.url }).count()).toBe(0);
      await page.getByText('(deleted)').waitFor();
      await check(page, 'webhook-delivery-endpoint-deleted', findings);

      expect(problems).toEqual([]);
      expect(findings).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
