import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * SSRF guard: webhook URLs must be HTTPS on a public address. The host is
 * resolved and every address checked (private, loopback, link-local, CGNAT,
 * multicast, reserved, IPv4-mapped IPv6 ...), at registration and again at
 * each send, where the connection is pinned to the address that was checked.
 * Local development may allow http://127.0.0.1 behind ALLOW_LOCAL_WEBHOOKS.
 */
export type UrlCheck = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

function v4Blocked(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  return (
    a === 0 || a === 10 || a === 127 || a >= 224 || // this network, private, loopback, multicast and reserved
    (a === 100 && b >= 64 && b <= 127) || // CGNAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments, TEST-NET-1 (192.0.2/24)
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51) || (a === 203 && b === 0) // TEST-NET-2/3
  );
}

function v6Blocked(ip: string): boolean {
  const x = ip.toLowerCase();
  if (x === '::' || x === '::1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x);
  if (mapped) return v4Blocked(mapped[1]!);
  return /^(fc|fd)/.test(x) || /^fe[89ab]/.test(x) || x.startsWith('ff') || x.startsWith('2001:db8') || x.startsWith('64:ff9b') || x.startsWith('100:');
}

export function isBlockedAddress(ip: string): boolean {
  return isIP(ip) === 4 ? v4Blocked(ip) : v6Blocked(ip);
}

export const localWebhooksAllowed = () => process.env.ALLOW_LOCAL_WEBHOOKS === 'true';

export async function checkWebhookUrl(raw: string, resolve: typeof lookup = lookup): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const local = localWebhooksAllowed() && url.protocol === 'http:' && (host === '127.0.0.1' || host === 'localhost');
  if (url.protocol !== 'https:' && !local) return { ok: false, reason: 'the URL must use https' };
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host, { all: true, verbatim: true });
  } catch {
    return { ok: false, reason: `the host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${host} does not resolve` };
  if (!local) {
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    if (bad) return { ok: false, reason: `the host resolves to a private or reserved address (${bad.address})` };
  } else if (addresses.some((a) => a.address !== '127.0.0.1' && a.address !== '::1')) {
    return { ok: false, reason: 'local webhooks may only target the loopback address' };
  }
  return { ok: true, url, address: addresses[0]!.address, family: addresses[0]!.family as 4 | 6 };
}
