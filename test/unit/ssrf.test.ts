import type { LookupOptions } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pinnedLookup, sendAttempt, signPayload } from '../../shared/webhooks/sender';
import { checkWebhookUrl, isBlockedAddress } from '../../shared/webhooks/ssrf';

const resolving = (address: string, family = 4) => (async () => [{ address, family }]) as never;

describe('SSRF guard', () => {
  afterEach(() => delete process.env.ALLOW_LOCAL_WEBHOOKS);
  it('blocks private, loopback, link-local, CGNAT, multicast and reserved addresses', () => {
    for (const ip of [
      '10.1.2.3',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '2001:db8::1',
      '3fff::1',
      '3fff:0fff:ffff::1',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '3fff:1000::1']) expect(isBlockedAddress(ip), ip).toBe(false);
  });

  it('wants https on a public address, checking what the host resolves to', async () => {
    expect(await checkWebhookUrl('https://bank.example/hooks', resolving('93.184.216.34'))).toMatchObject({
      ok: true,
      addresses: [{ address: '93.184.216.34', family: 4 }],
    });
    expect(await checkWebhookUrl('http://bank.example/hooks', resolving('93.184.216.34'))).toMatchObject({ ok: false, reason: 'the URL must use https' });
    expect(await checkWebhookUrl('https://internal.example/hooks', resolving('10.0.0.5'))).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('https://169.254.169.254/latest/meta-data')).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('https://user:pw@bank.example/', resolving('93.184.216.34'))).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('not a url')).toMatchObject({ ok: false });
  });

  it('allows http://127.0.0.1 only behind the local setting', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:9000/hook')).toMatchObject({ ok: false });
    process.env.ALLOW_LOCAL_WEBHOOKS = 'true';
    expect(await checkWebhookUrl('http://127.0.0.1:9000/hook')).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('https://localhost:9000/hook', resolving('127.0.0.1'))).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('https://internal.example/', resolving('10.0.0.5'))).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://localhost:9000/hook', resolving('10.0.0.5'))).toMatchObject({ ok: false });
  });

  it('keeps every checked address of a host, so a dual-stack name can fall back from one family to the other', async () => {
    const both = (async () => [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]) as never;
    expect(await checkWebhookUrl('https://bank.example/hooks', both)).toMatchObject({
      ok: true,
      addresses: [
        { address: '2606:4700:4700::1111', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ],
    });
  });
});

describe('pinned lookup', () => {
  const checked = [
    { address: '2606:4700:4700::1111', family: 6 as const },
    { address: '93.184.216.34', family: 4 as const },
  ];
  const ask = (options: LookupOptions) =>
    new Promise<unknown[]>((resolve) => pinnedLookup(checked)('bank.example', options, (...args: unknown[]) => resolve(args)));
  it('answers {all: true} with an array, as Node 20+ asks for Happy Eyeballs', async () => {
    expect(await ask({ all: true })).toEqual([null, checked]);
    expect(await ask({ all: true, family: 4 })).toEqual([null, [checked[1]]]);
  });
  it('answers the single form with one address and its family', async () => {
    expect(await ask({})).toEqual([null, '2606:4700:4700::1111', 6]);
    expect(await ask({ family: 'IPv4' })).toEqual([null, '93.184.216.34', 4]);
  });
  it('never answers an address that was not checked', async () => {
    const [err] = await new Promise<unknown[]>((resolve) => pinnedLookup([checked[1]!])('bank.example', { family: 6 }, (...a: unknown[]) => resolve(a)));
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('sending to a host name', () => {
  afterEach(() => delete process.env.ALLOW_LOCAL_WEBHOOKS);
  it('reaches http://localhost as it reaches http://127.0.0.1', async () => {
    process.env.ALLOW_LOCAL_WEBHOOKS = 'true';
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c));
      req.on('end', () => {
        bodies.push(raw);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const host of ['localhost', '127.0.0.1']) {
        const r = await sendAttempt({
          url: `http://${host}:${port}/h`,
          secret: 's',
          body: `{"to":"${host}"}`,
          eventId: 'e',
          eventType: 't',
          deliveryId: 'd',
          attempt: 1,
        });
        expect(r, host).toMatchObject({ delivered: true, http_status: 200, error: null });
      }
      expect(bodies).toEqual(['{"to":"localhost"}', '{"to":"127.0.0.1"}']);
    } finally {
      server.close();
    }
  });
});

describe('delivery signature', () => {
  // The worked example of docs/guides/authentication.md, checked independently with openssl dgst -sha256 -hmac.
  const body =
    '{"id":"9f1c2d3e-0000-4000-8000-000000000001","type":"booking.confirmed","created_at":"2026-11-21T10:00:00.000Z","test":true,"data":{"booking_number":"PTB-7K3M-Q9XD","partner_reference":"BANK-001","status":"CONFIRMED","travel_date":"2026-12-01"}}';
  it('is hex HMAC-SHA256 of the raw body with the signing secret', () => {
    expect(signPayload('whsec_example_secret', body)).toBe('ca1056a4d82c79af800e1f48fdc10d96b1b01ee33c17e56d115b2a80e92d86c7');
    expect(signPayload('whsec_example_secret', body.replace('"test":true', '"test": true'))).not.toBe(
      'ca1056a4d82c79af800e1f48fdc10d96b1b01ee33c17e56d115b2a80e92d86c7',
    );
  });
});

describe('SSRF guard, IPv6 forms that embed an IPv4 address', () => {
  it('blocks mapped, compatible, NAT64, 6to4 and Teredo forms, in hex or dotted notation', () => {
    for (const ip of [
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::ffff:0:7f00:1',
      '::7f00:1',
      '::127.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'fec0::1',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    expect(isBlockedAddress('::ffff:5db8:d822')).toBe(true); // the whole mapped range is refused, public or not
    expect(isBlockedAddress('2a00:1450:4007:80e::200e')).toBe(false);
  });
  it('refuses such URLs as written by a client (the URL parser rewrites them to hex)', async () => {
    for (const u of ['https://[::ffff:127.0.0.1]/', 'https://[::ffff:169.254.169.254]/latest', 'https://[::ffff:0:127.0.0.1]/']) {
      expect(await checkWebhookUrl(u), u).toMatchObject({ ok: false });
    }
  });
});
