import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { Secret, TOTP } from 'otpauth';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { strongPassword } from './console-session';
import { admin, api, baseUrl, type newPartner, stackRuntime, write } from './helpers';

export { cognito, consoleClientId as clientId, invitationPassword, resign, strongPassword } from './console-session';

/**
 * The partner console in a real browser: Debian's Chromium driven by playwright-core (as the
 * reference page's test does), a member signing in through the console's own pages (password,
 * new password, TOTP enrolment with the key shown on the page), axe on every page, screenshots.
 */

/** Debian's Chromium (.ci/run installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = resolve(import.meta.dirname, '..', '..', 'test-output', 'console');

/** The console's address: its own origin, as CloudFront's is in AWS (the API, Cognito and S3 are others). */
export const consoleUrl = (hash = '') => `${stackRuntime().consoleUrl}${hash ? `#/${hash}` : ''}`;
export const consoleOrigin = () => new URL(stackRuntime().consoleUrl).origin;
/** The origins the console calls (its CSP's connect-src): itself, the API, the local Cognito, the local S3 (a large document). */
const consoleReaches = () => {
  const env = stackRuntime().env;
  return [consoleOrigin(), new URL(baseUrl()).origin, env.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER!, env.AWS_ENDPOINT_URL_S3!].map((u) => new URL(u).origin);
};

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** One Chromium for the tests of a file, launched before them and closed after: call at the top of a describe. */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and requests to origins the console has no business with: both must stay empty. */
  problems: string[];
  /** The X-Environment of every API request the page made, in order. */
  apiCalls: { method: string; path: string; environment: string | undefined; idempotencyKey: string | undefined }[];
  /** The Cognito operations the page called (X-Amz-Target), in order. */
  cognitoCalls: string[];
}

/**
 * A fresh browser context (its own sessionStorage) at 1280×800. Requests are watched, never intercepted: while
 * page.route is on, Playwright answers every CORS preflight itself (allowing all), so the API's, Cognito's and
 * S3's CORS would go untested. The console's CSP is what stops a request to another origin.
 */
export async function openConsole(browser: Browser, options: { timezoneId?: string; locale?: string } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, ...options });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: consoleOrigin() });
  const page = await context.newPage();
  const problems: string[] = [];
  const apiCalls: ConsolePage['apiCalls'] = [];
  const cognitoCalls: string[] = [];
  const reaches = consoleReaches();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // What the browser refuses, its CSP or another origin's CORS, it says on the console.
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|CORS policy/.test(m.text())) problems.push(`refused: ${m.text()}`);
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['data:', 'blob:'].includes(u.protocol) && !reaches.includes(u.origin)) problems.push(`request to another origin: ${r.url()}`);
    const h = r.headers();
    if (u.pathname === '/cognito/')
      cognitoCalls.push(`${(h['x-amz-target'] ?? '').split('.').pop()} ${JSON.parse(r.postData() ?? '{}').AuthFlow ?? ''}`.trim());
    if (u.pathname.startsWith('/v1/'))
      apiCalls.push({ method: r.method(), path: u.pathname + u.search, environment: h['x-environment'], idempotencyKey: h['idempotency-key'] });
  });
  return { context, page, problems, apiCalls, cognitoCalls };
}

export interface ConsoleUser {
  email: string;
  password: string;
  memberId?: string;
  /** Read from the enrolment page (the key shown as text) at the first sign-in. */
  totpSecret?: string;
}

const usedSteps = new Map<string, number>();
/**
 * The current TOTP code of a secret. A code is accepted once (as Cognito does), so a second sign-in
 * within the same 30 s step waits for the next one.
 */
export async function freshCode(secret: string): Promise<string> {
  let step = Math.floor(Date.now() / 30_000);
  if (usedSteps.get(secret) === step) {
    await new Promise((r) => setTimeout(r, (step + 1) * 30_000 - Date.now() + 250));
    step = Math.floor(Date.now() / 30_000);
  }
  usedSteps.set(secret, step);
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: step * 30_000 + 1_000 });
}

/** A member added by an operator (member:add), with a permanent console password set (member:set-password). */
export async function consoleUser(partner: Awaited<ReturnType<typeof newPartner>>, role: string): Promise<ConsoleUser> {
  const email = `${role.toLowerCase()}-${randomUUID().slice(0, 8)}@bank.example`;
  const m = await admin([
    'member:add',
    '--partner',
    partner.partner_id,
    '--email',
    email,
    '--role',
    role,
    '--first-name',
    'Sam',
    '--last-name',
    role,
    '--json',
  ]);
  if (m.code !== 0) throw new Error(`member:add failed: ${m.stderr}`);
  return withPassword(partner, m.json.member_id, email);
}

/** The partner's first PARTNER_ADMIN (partner:create makes it), with a console password. */
export async function partnerAdmin(partner: Awaited<ReturnType<typeof newPartner>>): Promise<ConsoleUser> {
  const list = await admin(['member:list', '--partner', partner.partner_id, '--json']);
  const m = (list.json.data as { member_id: string; email: string }[]).find((x) => x.member_id === partner.member_id)!;
  return withPassword(partner, m.member_id, m.email);
}

async function withPassword(partner: Awaited<ReturnType<typeof newPartner>>, memberId: string, email: string): Promise<ConsoleUser> {
  const password = strongPassword();
  const set = await admin(['member:set-password', '--partner', partner.partner_id, '--member', memberId, '--password', password, '--json']);
  if (set.code !== 0) throw new Error(`member:set-password failed: ${set.stderr}`);
  return { email, password, memberId };
}

const h1 = (page: Page) => page.getByRole('heading', { level: 1 });

/**
 * Signs in through the console's pages, answering what comes: a new password (the user's is
 * updated), the TOTP enrolment (the key is read from the page, as a person types it), a code.
 * `onStep` sees each page first (for axe and screenshots).
 */
export async function signInUi(page: Page, user: ConsoleUser, onStep?: (step: 'sign-in' | 'new-password' | 'mfa-setup' | 'mfa-code') => Promise<void>) {
  if (!page.url().startsWith(consoleUrl())) await page.goto(consoleUrl());
  await h1(page).filter({ hasText: 'Sign in' }).waitFor();
  await onStep?.('sign-in');
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  for (let i = 0; i < 4; i++) {
    await h1(page)
      .filter({ hasText: /Choose a new password|Set up two-step verification|Enter your verification code|Overview/ })
      .or(page.getByRole('alert'))
      .first()
      .waitFor();
    const alert = page.locator('main [role=alert]');
    if (await alert.count()) throw new Error(`sign-in of ${user.email} refused: ${await alert.first().innerText()}`);
    const title = await h1(page).innerText();
    if (title === 'Overview') return;
    if (title === 'Choose a new password') {
      await onStep?.('new-password');
      user.password = strongPassword();
      await page.getByLabel('New password', { exact: true }).fill(user.password);
      await page.getByLabel('New password, again').fill(user.password);
      await page.getByRole('button', { name: 'Save the new password' }).click();
      await h1(page).filter({ hasNotText: 'Choose a new password' }).waitFor();
    } else if (title === 'Set up two-step verification') {
      await page.locator('img.qr').waitFor();
      await onStep?.('mfa-setup');
      // What a person without a camera types: the key shown as text, spaces and all.
      const shown = await page.getByTestId('totp-secret').innerText();
      user.totpSecret = shown.replace(/\s+/g, '');
      await page.getByLabel('6-digit code').fill(await freshCode(user.totpSecret));
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      await h1(page).filter({ hasNotText: 'Set up two-step verification' }).waitFor();
    } else {
      await onStep?.('mfa-code');
      if (!user.totpSecret) throw new Error(`${user.email} has no TOTP secret`);
      await page.getByLabel('6-digit code').fill(await freshCode(user.totpSecret));
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await h1(page).filter({ hasNotText: 'Enter your verification code' }).waitFor();
    }
  }
  await h1(page).filter({ hasText: 'Overview' }).waitFor();
}

/** Opens a console page by its address and waits for its heading and for its spinners to end. */
export async function visit(page: Page, hash: string, heading: string | RegExp) {
  await page.goto(consoleUrl(hash));
  await settle(page, heading);
}

export async function settle(page: Page, heading?: string | RegExp) {
  if (heading) await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await expect.poll(() => page.locator('.spinner').count(), { timeout: 20_000 }).toBe(0);
}

export interface AxeFinding {
  page: string;
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe's serious and critical findings on the page as it is now (WCAG 2.1 A and AA rules and axe's best practices). */
export async function axe(page: Page, name: string): Promise<AxeFinding[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ page: name, id: v.id, impact: v.impact!, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/** A screenshot of the whole page under test-output/console/. */
export async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** axe, then a screenshot: what every page of the console gets. The findings are collected for one assertion at the end. */
export async function check(page: Page, name: string, findings: AxeFinding[]) {
  findings.push(...(await axe(page, name)));
  await shot(page, name);
}

// The browser's globals, for the functions that run in the page (the tests' tsconfig has no DOM library).
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
declare const navigator: { clipboard: { readText(): Promise<string> } };

/** The console's session as the page keeps it (sessionStorage), or null when signed out. */
export const pageSession = (page: Page) =>
  page.evaluate(
    () => JSON.parse(sessionStorage.getItem('console.session') ?? 'null') as { accessToken: string; refreshToken: string; expiresAt: number } | null,
  );

/** Changes what the page keeps of its session (sessionStorage), as time or a lost token would. */
export async function editPageSession(page: Page, patch: Record<string, unknown>) {
  await page.evaluate((patch) => {
    const key = 'console.session';
    sessionStorage.setItem(key, JSON.stringify({ ...JSON.parse(sessionStorage.getItem(key)!), ...patch }));
  }, patch);
}

export const clipboardText = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** A console session's request made from the page itself, with the token the console holds (what a curious member could do). */
export async function fetchAsPage(page: Page, method: string, path: string, environment: 'sandbox' | 'live', body?: unknown) {
  return page.evaluate(
    async ({ method, path, environment, body, apiBaseUrl }) => {
      const s = JSON.parse(sessionStorage.getItem('console.session') ?? 'null') as { accessToken: string } | null;
      const res = await fetch(`${apiBaseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${s?.accessToken ?? ''}`,
          'X-Environment': environment,
          'Idempotency-Key': crypto.randomUUID(),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
    },
    { method, path, environment, body, apiBaseUrl: baseUrl() },
  );
}

/** A confirmed sandbox booking of the partner, made through the API as its bank would (a signed payment confirmation). */
export async function sandboxBooking(partner: Awaited<ReturnType<typeof newPartner>>, daysAhead = 20) {
  const key = partner.test_key;
  const d = (await api('GET', '/adventures/marrakech-medina-and-souks-guided-walking-tour', { key })).body;
  const rp = d.rate_packs.find((r: { min_travelers: number }) => r.min_travelers === 1);
  const pack = { id: rp.id as string, start_time: (rp.booking_mode === 'FLEXIBLE' ? null : rp.schedule.start_times[0]) as string | null };
  const quote = await quoteFor(key, pack, addDays(localDate(new Date()), daysAhead));
  const jwk = await sandboxPaymentKey(partner.partner_id);
  const r = await write('POST', '/bookings', key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
  if (r.status !== 201) throw new Error(`booking failed: ${r.text}`);
  return r.body as { booking_number: string; partner_reference: string };
}

export interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  event: { id: string; type: string; test: boolean; data: Record<string, unknown> };
}

/** A webhook receiver on the loopback that keeps each delivery's headers and exact bytes (to check the signature); `status` answers each (200 unless set). */
export async function startReceiver(status: () => number = () => 200) {
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, raw, event: JSON.parse(raw) });
      res.writeHead(status()).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/partner-hooks`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** X-Service-Signature as the spec defines it: hex HMAC-SHA256 of the exact body with the endpoint's signing secret. */
export const signatureOf = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');
