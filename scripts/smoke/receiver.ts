import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookEvent } from '../../sdk/src/index';

export interface Receipt {
  /** The event id: from the verified body, else from the webhook-id header. */
  event_id: string | undefined;
  event?: WebhookEvent;
  /** Why the delivery was refused (its signature or headers did not verify). */
  refused?: string;
}

/** Deliveries are small (64 KB answers at most are read by the service; events are far smaller). */
const MAX_BODY_BYTES = 1_048_576;

function rawBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolveBody(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
  });
}

/**
 * A bank's webhook receiver: verifies each delivery over its raw bytes with the endpoint's
 * secret (verifyWebhook: the HMAC and the Standard Webhooks signature, the timestamp window),
 * answers 204 to what verifies and 400 to the rest, and keeps what it got. It listens on the
 * loopback only: a tunnel forwards the public URL to it.
 */
export async function startReceiver(port: number) {
  let secret = '';
  const receipts: Receipt[] = [];
  const server = createServer(async (req, res) => {
    const body = await rawBody(req).catch(() => undefined);
    const header = req.headers['webhook-id'];
    if (req.method !== 'POST' || !body || !secret) {
      receipts.push({ event_id: typeof header === 'string' ? header : undefined, refused: !secret ? 'no endpoint secret yet' : 'not a POST of a delivery' });
      res.writeHead(400).end();
      return;
    }
    try {
      const event = verifyWebhook(body, req.headers, secret);
      receipts.push({ event_id: event.id, event });
      res.writeHead(204).end();
    } catch (e) {
      receipts.push({ event_id: typeof header === 'string' ? header : undefined, refused: (e as Error).message });
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen());
  });
  return {
    port: (server.address() as AddressInfo).port,
    receipts,
    useSecret(s: string) {
      secret = s;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
