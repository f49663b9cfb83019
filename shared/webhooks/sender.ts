import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ReceiverAnswer } from './model';
import { type CheckedAddress, checkWebhookUrl } from './ssrf';

/** A delivery attempt must answer 2xx within this time; the rest counts as a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** The start of a receiver's answer kept on the attempt, as Stripe and Svix show it: enough to read an error page's message. */
export const KEPT_RESPONSE_BYTES = 1024;
/** At most this many of the answer's headers are kept, each value cut to 256 characters (a receiver chooses them). */
const KEPT_HEADERS = 32;
const KEPT_HEADER_CHARS = 256;

export function signPayload(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * The Standard Webhooks signature (`webhook-signature`): `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the secret's part after `whsec_` decoded from base64, the
 * convention of the specification's libraries (`standardwebhooks` on npm verifies it unchanged).
 */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * The signature headers of one attempt: the spec's own, and the Standard Webhooks ones beside them.
 * The spec's `X-Service-Signature` is one hex HMAC, which one secret verifies: during a secret rotation it
 * stays keyed with the previous secret, the one a receiver that follows only the spec still holds (the case
 * the overlap exists for), until the overlap ends. `X-Service-Signature-Next` carries the new secret's,
 * `X-Service-Signature-Previous` the previous one's again (kept for receivers written before -Next), and
 * `webhook-signature` both, space-separated, new first.
 */
export function signatureHeaders(input: { secret: string; previousSecret?: string; body: string; eventId: string }, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const secrets = input.previousSecret ? [input.secret, input.previousSecret] : [input.secret];
  return {
    'x-service-signature': signPayload(input.previousSecret ?? input.secret, input.body),
    ...(input.previousSecret
      ? { 'x-service-signature-next': signPayload(input.secret, input.body), 'x-service-signature-previous': signPayload(input.previousSecret, input.body) }
      : {}),
    'webhook-id': input.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, input.eventId, timestamp, input.body)).join(' '),
  };
}

/**
 * A `lookup` that answers only with the addresses the SSRF check approved, whatever DNS says now.
 * Node asks in two forms: `{all: true}` (the default since Node 20, for Happy Eyeballs) wants an
 * array, otherwise one address and its family. Both are answered, honouring a requested family.
 */
export function pinnedLookup(addresses: readonly CheckedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const want = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = addresses.filter((a) => !want || a.family === want);
    const cb = callback as (...args: unknown[]) => void;
    if (usable.length === 0) {
      const e: NodeJS.ErrnoException = new Error(`no checked address of family ${want} for ${hostname}`);
      e.code = 'ENOTFOUND';
      return cb(e, options.all ? [] : '', 0);
    }
    if (options.all)
      return cb(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    return cb(null, usable[0]!.address, usable[0]!.family);
  };
}

export interface AttemptResult {
  delivered: boolean;
  http_status: number | null;
  error: string | null;
  response_time_ms: number;
  /** Absent when nothing answered (a timeout before the headers, a refused connection, an SSRF refusal). */
  response?: ReceiverAnswer;
}

/** The answer's headers as kept: the first KEPT_HEADERS, each value at most KEPT_HEADER_CHARS. */
function keptHeaders(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length && Object.keys(out).length < KEPT_HEADERS; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!.slice(0, KEPT_HEADER_CHARS);
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

/** The first KEPT_RESPONSE_BYTES of a body as text, a multi-byte character cut at the end dropped. */
function keptBody(chunks: Buffer[]): string {
  const head = Buffer.concat(chunks).subarray(0, KEPT_RESPONSE_BYTES);
  return new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/\uFFFD$/, '');
}

/**
 * One HTTPS POST of the exact envelope bytes: signature and ids in headers,
 * the SSRF check redone now and the socket pinned to the checked address, no
 * redirects followed, a hard timeout and a cap on the bytes read.
 */
/** Network failures are reported as fixed categories: raw socket errors would let the test endpoint probe ports. */
function category(e: NodeJS.ErrnoException): string {
  if (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' || e.code === 'EHOSTUNREACH' || e.code === 'ENETUNREACH') return 'connection failed';
  if (e.code?.startsWith('ERR_TLS') || e.code?.includes('CERT') || e.code === 'EPROTO') return 'TLS handshake failed';
  return 'request failed';
}

export async function sendAttempt(
  input: { url: string; secret: string; previousSecret?: string; body: string; eventId: string; eventType: string; deliveryId: string; attempt: number },
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<AttemptResult> {
  const started = Date.now();
  const check = await checkWebhookUrl(input.url);
  if (!check.ok) return { delivered: false, http_status: null, error: `refused: ${check.reason}`, response_time_ms: 0 };
  const { url, addresses } = check;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (r: Omit<AttemptResult, 'response_time_ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, response_time_ms: Date.now() - started });
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(input.body),
          'user-agent': 'partner-travel-webhooks/1',
          ...signatureHeaders(input),
          'x-service-event-id': input.eventId,
          // The attempt's id: GET /webhooks/deliveries/{id} resolves it to its delivery.
          'x-service-delivery-id': input.deliveryId,
          'x-service-delivery-attempt': String(input.attempt),
          'x-service-event-type': input.eventType,
        },
        // Connect only to the addresses that passed the SSRF check; TLS still checks the certificate
        // against the host name, sent as SNI (never an IP literal, which RFC 6066 forbids there).
        lookup: pinnedLookup(addresses),
        ...(isIP(host) ? {} : { servername: host }),
      },
      (res) => {
        let read = 0;
        const head: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (read < KEPT_RESPONSE_BYTES) head.push(c);
          read += c.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const status = res.statusCode ?? 0;
        const finish = () =>
          done({
            delivered: status >= 200 && status < 300,
            http_status: status,
            error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
            response: { headers: keptHeaders(res.rawHeaders), body: keptBody(head), body_truncated: read > KEPT_RESPONSE_BYTES || !res.complete },
          });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(
      () => {
        req.destroy();
        done({ delivered: false, http_status: null, error: `timeout after ${timeoutMs} ms` });
      },
      Math.max(0, timeoutMs - (Date.now() - started)),
    );
    req.on('error', (e) => done({ delivered: false, http_status: null, error: category(e) }));
    req.end(input.body);
  });
}
