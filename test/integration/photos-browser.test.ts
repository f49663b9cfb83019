import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './console-helpers';
import { newPartner } from './helpers';
import { createFile, fileOf, objectExists, PNG, settled } from './photo-helpers';

/**
 * A bank's web app uploads a review photo from the traveler's browser (issue 39, item 3.9): the bank's server
 * (this test's node side) asks the API for the file and its presigned POST with the partner's key, and hands the
 * form to its page, which never holds the key; the page, on an origin of its own (a server on 127.0.0.1 the test
 * starts, not the S3 server's), POSTs the photo straight to the local S3 under the photo bucket's CORS rule
 * (PHOTO_UPLOAD_CORS). Real Chromium, no request intercepted (Playwright's routing would answer preflights itself).
 */

// The page's own globals, run in the browser (the tests compile without the DOM library).
declare const XMLHttpRequest: new () => {
  open(method: string, url: string): void;
  send(body: unknown): void;
  status: number;
  upload: { onprogress: (() => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
};

let partner: Awaited<ReturnType<typeof newPartner>>;
let site: Server;
let browser: Browser;
let page: Page;
/** What Chromium refused by CORS, as it says on the page's console. */
const refusals: string[] = [];

type Upload = Awaited<ReturnType<typeof createFile>>['upload'];
/** What the page is given: the form of POST /files (no key), and the photo. */
const handed = (upload: Upload) => ({ url: upload.url, fields: upload.fields, photo: PNG.toString('base64') });

beforeAll(async () => {
  partner = await newPartner();
  // The bank's web app: a page of its own origin.
  site = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Bank</title>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  browser = await launch();
  page = await (await browser.newContext()).newPage();
  page.on('console', (m) => {
    if (/CORS policy/.test(m.text())) refusals.push(m.text());
  });
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
});

afterAll(async () => {
  await browser?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

describe("a bank's web app uploads a review photo from the browser", () => {
  it('POSTs the presigned form with fetch(FormData) from another origin, reads the answer, and the photo is validated as usual', async () => {
    const file = await createFile(partner.test_key, 'image/png', PNG.length);
    expect(new URL(file.upload.url).origin).not.toBe(new URL(page.url()).origin);
    const answer = await page.evaluate(async ({ url, fields, photo }) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([Uint8Array.from(atob(photo), (c) => c.charCodeAt(0))], { type: 'image/png' }), 'photo.png');
      try {
        const res = await fetch(url, { method: 'POST', body: form });
        return { status: res.status };
      } catch (e) {
        return { refused: String(e) };
      }
    }, handed(file.upload));
    // S3's default success_action_status; without Access-Control-Allow-Origin the page would get a TypeError instead.
    expect(answer).toEqual({ status: 204 });
    expect((await settled(partner.test_key, file.id)).body).toMatchObject({ status: 'READY', url: expect.any(String) });
    expect(refusals).toEqual([]);
  });

  it('POSTs with upload progress (a preflighted XMLHttpRequest); a header or a method the rule does not allow is refused by the browser and never reaches storage', async () => {
    const progress = await createFile(partner.test_key, 'image/png', PNG.length);
    const refused = await createFile(partner.test_key, 'image/png', PNG.length);
    const { uploaded, withHeader, put } = await page.evaluate(
      async ({ progress, refused }) => {
        const formOf = (h: { fields: Record<string, string>; photo: string }) => {
          const form = new FormData();
          for (const [k, v] of Object.entries(h.fields)) form.append(k, v);
          form.append('file', new Blob([Uint8Array.from(atob(h.photo), (c) => c.charCodeAt(0))], { type: 'image/png' }), 'photo.png');
          return form;
        };
        const refusal = (p: Promise<Response>) =>
          p.then(
            (r) => `answered ${r.status}`,
            (e) => String(e),
          );
        const uploaded = await new Promise<number | string>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open('POST', progress.url);
          // An upload listener makes the request preflighted (the Fetch standard's use-CORS-preflight flag).
          xhr.upload.onprogress = () => {};
          xhr.onload = () => resolve(xhr.status);
          xhr.onerror = () => resolve('refused');
          xhr.send(formOf(progress));
        });
        const withHeader = await refusal(fetch(refused.url, { method: 'POST', body: formOf(refused), headers: { 'X-Requested-With': 'XMLHttpRequest' } }));
        // S3's other upload method, on the same key.
        const put = await refusal(fetch(`${refused.url}/${refused.fields.key}`, { method: 'PUT', body: formOf(refused) }));
        return { uploaded, withHeader, put };
      },
      { progress: handed(progress.upload), refused: handed(refused.upload) },
    );
    expect(uploaded).toBe(204);
    // A refused preflight: the browser never sends the request and the page learns nothing but a TypeError.
    expect(withHeader).toMatch(/^TypeError: Failed to fetch/);
    expect(put).toMatch(/^TypeError: Failed to fetch/);
    await expect.poll(() => refusals.length).toBe(2);
    for (const r of refusals) expect(r).toContain('blocked by CORS policy');
    expect(await objectExists(refused.upload.fields.key!)).toBe(false);
    expect((await fileOf(partner.test_key, refused.id)).body.status).toBe('PENDING_UPLOAD');
    expect((await settled(partner.test_key, progress.id)).body.status).toBe('READY');
  });
});
