// A bank's app server, for signatures.test.ts: its own process and SDK client. It prints "ready", reads the
// Unix time in ms at which to send from stdin, sends one live POST /quotes then, and prints
// {status, id, code, message, timestamp}: what the service answered and the X-Timestamp the client signed.
import { createInterface } from 'node:readline';
import { createClient, PartnerApiError, type SignatureVersion } from '../../sdk/src/index';

const { API_KEY, BASE_URL, BODY, SIGNATURE_VERSION } = process.env as Record<string, string>;
let timestamp: string | null = null;
const client = createClient({
  apiKey: API_KEY!,
  baseUrl: BASE_URL,
  signatureVersion: Number(SIGNATURE_VERSION) as SignatureVersion,
  maxRetries: 0,
  fetch: (url, init) => {
    timestamp = (init?.headers as Record<string, string> | undefined)?.['x-timestamp'] ?? null;
    return fetch(url, init);
  },
});
console.log('ready');
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const at = Number((await lines.next()).value);
await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
const out = await client.quotes
  .create({ body: JSON.parse(BODY!) })
  .then((q) => ({ status: 201, id: q.id }))
  .catch((e: unknown) => {
    if (e instanceof PartnerApiError) return { status: e.status, code: e.code, message: e.message };
    throw e;
  });
console.log(JSON.stringify({ ...out, timestamp }));
process.exit(0);
