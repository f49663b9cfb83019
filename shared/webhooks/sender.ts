import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrl } from './ssrf';

/** A delivery attempt must answer 2xx within this time; the rest counts as a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export function signPayload(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export interface AttemptResult {
  delivered: boolean;
  http_status: number | null;
  error: string | null;
  response_time_ms: number;
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
  input: { url: string; secret: string; body: string; eventId: string; eventType: string; deliveryId: string; attempt: number },
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<AttemptResult> {
  const started = Date.now();
  const check = await checkWebhookUrl(input.url);
  if (!check.ok) return { delivered: false, http_status: null, error: `refused: ${check.reason}`, response_time_ms: 0 };
  const { url, address, family } = check;
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
          'x-service-signature': signPayload(input.secret, input.body),
          'x-service-event-id': input.eventId,
          // The attempt's id: GET /webhooks/deliveries/{id} resolves it to its delivery.
          'x-service-delivery-id': input.deliveryId,
          'x-service-delivery-attempt': String(input.attempt),
          'x-service-event-type': input.eventType,
        },
        // Connect to the address that passed the SSRF check, whatever DNS says now.
        lookup: (_host, _opts, cb) => (cb as (e: null, a: string, f: number) => void)(null, address, family),
        servername: url.hostname,
      },
      (res) => {
        let read = 0;
        res.on('data', (c: Buffer) => {
          read += c.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const status = res.statusCode ?? 0;
        const finish = () =>
          done({ delivered: status >= 200 && status < 300, http_status: status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
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
