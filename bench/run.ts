import '../scripts/quiet-sdk';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../infra/local/services';
import { startLocalStack } from '../infra/local/stack';
import { measure, table, type Stats } from './lib';

/**
 * npm run bench: boots the local stack in this process (so the handlers share
 * our DynamoDB client and its call counter), then measures each scenario
 * sequentially against a bare DynamoDB call measured in the same run.
 */
const port = await freePort();
const stateDir = mkdtempSync(join(tmpdir(), 'ptbs-bench-'));
const bootStart = Date.now();
const stack = await startLocalStack({ port, stateDir, reset: true, log: () => undefined });
console.log(`local stack booted in ${((Date.now() - bootStart) / 1000).toFixed(1)} s`);

const { dynamo, ddb } = await import('../shared/aws');
const { GetCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
const { accessRepository } = await import('../shared/access/repository');
const { accessKeys } = await import('../shared/access/model');
const { sign } = await import('../shared/platform/signature');

let ddbCalls = 0;
dynamo.middlewareStack.add((next) => async (args) => {
  ddbCalls++;
  return next(args);
}, { step: 'initialize', name: 'benchCallCounter' });

const N = Number(process.env.BENCH_N ?? 400);
const base = stack.baseUrl;
const partner = await accessRepository.createPartner({ name: 'Bench Bank' });
await accessRepository.setRateLimit(partner.partner.partner_id, 1_000_000);
const other = await accessRepository.addMember(partner.partner.partner_id, { email: 'bench-dev@bench.example', role: 'DEVELOPER' });
const testKey = partner.testKey.key;
const liveKey = partner.liveKey.key;
const TableName = process.env.ACCESS_TABLE!;

async function withCalls(s: Promise<Stats>, n: number, before: number): Promise<Stats> {
  const stats = await s;
  return { ...stats, ddbPerRequest: (ddbCalls - before) / n };
}

async function expectOk(res: Response, what: string) {
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

const results: Stats[] = [];
const bareGet = await measure('bare DynamoDB GetItem', N, async () => {
  await ddb.send(new GetCommand({ TableName, Key: accessKeys.apiKey(partner.testKey.key_id) }));
});
results.push(bareGet);
results.push(
  await measure('bare DynamoDB UpdateItem', N, async () => {
    await ddb.send(new UpdateCommand({ TableName, Key: { pk: 'BENCH', sk: 'counter' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
  }),
);

let c = ddbCalls;
results.push(await withCalls(measure('GET /v1/health (public)', N, async () => expectOk(await fetch(`${base}/health`), 'health')), N + 20, c));

c = ddbCalls;
results.push(
  await withCalls(
    measure('GET /v1/me (keyed read)', N, async () => expectOk(await fetch(`${base}/me`, { headers: { authorization: `Bearer ${testKey}` } }), 'me')),
    N + 20,
    c,
  ),
);

c = ddbCalls;
results.push(
  await withCalls(
    measure('GET /v1/audit-events (keyed list)', N, async () => expectOk(await fetch(`${base}/audit-events?limit=25`, { headers: { authorization: `Bearer ${testKey}` } }), 'audit')),
    N + 20,
    c,
  ),
);

const roles = ['VIEWER', 'DEVELOPER'];
const patchRole = (key: string) => async (i: number) => {
  const body = JSON.stringify({ role: roles[Math.abs(i) % 2] });
  const path = `/v1/team/members/${other.member_id}/role`;
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
  if (key.startsWith('sk_live_')) {
    const ts = String(Math.floor(Date.now() / 1000));
    headers['x-timestamp'] = ts;
    headers['x-signature'] = sign(key.split('_')[3]!, ts, 'PATCH', path, body);
  }
  await expectOk(await fetch(`${base.replace(/\/v1$/, '')}${path}`, { method: 'PATCH', headers, body }), 'patch role');
};
const writeN = Math.max(50, Math.floor(N / 2));
c = ddbCalls;
results.push(await withCalls(measure('PATCH role (sandbox idempotent write)', writeN, patchRole(testKey)), writeN + 20, c));
c = ddbCalls;
results.push(await withCalls(measure('PATCH role (live, signed write)', writeN, patchRole(liveKey)), writeN + 20, c));

console.log(`\nLatency through the full local stack (HTTP -> API Gateway emulation -> middy -> DynamoDB Local), sequential, n per row:\n`);
console.log(table(results, bareGet));
console.log(
  '\nRound trips: a keyed read = GetItem(key), then BatchGetItem(member+partner) in parallel with UpdateItem(rate counter); ' +
    'a write adds PutItem(idempotency claim), the operation, UpdateItem(idempotency result) and PutItem(audit).',
);

await stack.stop();
rmSync(stateDir, { recursive: true, force: true });
process.exit(0);
