import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF guard: webhook URLs must be HTTPS on a public address. The host is
 * resolved and every address checked against the special-purpose ranges
 * (private, loopback, link-local, CGNAT, multicast, reserved, documentation,
 * and IPv6 forms that embed an IPv4 address: mapped, compatible, NAT64, 6to4,
 * Teredo), at registration and again at each send, where the connection is
 * pinned to the addresses that were checked. Local development may allow
 * receivers on the loopback (127.0.0.1, ::1, localhost; http or https) behind
 * ALLOW_LOCAL_WEBHOOKS.
 */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}
export type UrlCheck = { ok: true; url: URL; addresses: CheckedAddress[] } | { ok: false; reason: string };

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
// IPv6: only global unicast (2000::/3) is reachable, minus its special-purpose blocks. Everything else
// (::/8 with the IPv4-mapped and -compatible forms, 64:ff9b::/96 NAT64, fc00::/7, fe80::/10, ff00::/8 ...) is refused.
const blocked6 = new BlockList();
for (const [net, prefix] of [
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:10::', 28],
  ['2001:20::', 28],
  ['2001:db8::', 32],
  ['2002::', 16],
  // RFC 9637's documentation block.
  ['3fff::', 20],
] as const)
  blocked6.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address, whatever its textual form. */
function v6Bytes(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.replace(dotted[1]!, `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const groups = tail !== undefined ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  if (groups.length !== 8) return undefined;
  return groups.flatMap((g) => {
    const n = parseInt(g || '0', 16);
    return [n >> 8, n & 255];
  });
}

export function isBlockedAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  const bytes = v6Bytes(ip);
  if (!bytes || (bytes[0]! & 0xe0) !== 0x20) return true;
  return blocked6.check(ip, 'ipv6');
}

export const localWebhooksAllowed = () => process.env.ALLOW_LOCAL_WEBHOOKS === 'true';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

export async function checkWebhookUrl(raw: string, resolve: typeof lookup = lookup): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const local = localWebhooksAllowed() && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(host);
  if (url.protocol !== 'https:' && !local) return { ok: false, reason: 'the URL must use https' };
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host, { all: true, verbatim: true });
  } catch {
    return { ok: false, reason: 'the host does not resolve' };
  }
  if (addresses.length === 0) return { ok: false, reason: 'the host does not resolve' };
  if (!local) {
    if (addresses.some((a) => isBlockedAddress(a.address))) return { ok: false, reason: 'the host resolves to a private or reserved address' };
  } else if (addresses.some((a) => a.address !== '127.0.0.1' && a.address !== '::1')) {
    return { ok: false, reason: 'local webhooks may only target the loopback address' };
  }
  return { ok: true, url, addresses: addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })) };
}
