import { accessPartitions } from '../access/keys';
import { clockPartitions } from '../clock/keys';
import { type DynamoUse, dynamoLine, mergeUses } from '../db/grants';
import type { RouteDef } from '../http/route-def';
import { QUEUES } from '../queues';
import { platformPartitions } from './keys';

/**
 * What the request pipeline does to the tables for every keyed request (shared/platform/authenticate.ts,
 * rate-limit.ts, auth-failures.ts): the key (its owner not cached yet) or a console session's identity link; the
 * key, member and partner in one batch; the key's rate counter and the failed authentications of a key id or an
 * address; a sandbox key's clock.
 */
export const KEYED_USE: DynamoUse = {
  access: {
    GetItem: [accessPartitions.key, accessPartitions.identity],
    BatchGetItem: [accessPartitions.key, accessPartitions.partner],
    UpdateItem: [platformPartitions.rateCounters, platformPartitions.authFailures],
  },
  data: { GetItem: [clockPartitions.clock] },
};

/**
 * What the pipeline adds for a write (shared/platform/idempotency.ts, audit.ts, signature-replay.ts): the
 * Idempotency-Key's claim, take-over, completion and release, the audit line, a version 1 live signature (and its
 * removal when its request is refused).
 */
export const WRITE_USE: DynamoUse = {
  access: {
    PutItem: [platformPartitions.idempotency, platformPartitions.audit, platformPartitions.signatures],
    UpdateItem: [platformPartitions.idempotency],
    // A refused request gives back what it claimed beside its authentication (shared/http/early-claim.ts).
    DeleteItem: [platformPartitions.idempotency, platformPartitions.signatures],
  },
};

/** A list with a signed cursor reads the cursor-signing key, which the first list of a deployment creates (shared/platform/service-secret.ts). */
export const CURSOR_USE: DynamoUse = { access: { GetItem: [platformPartitions.config], PutItem: [platformPartitions.config] } };

/** The $default route's function: 404 or 405 in the error shape for unmatched requests. */
export const FALLBACK_HANDLER = 'functions/meta/fallback.ts';

/** What the $default route does: a key on an unmatched request is authenticated and counted, without the clock. */
export const FALLBACK_USE: DynamoUse = { access: KEYED_USE.access };

/**
 * Platform grants a route's tests may leave unused, each with the path that needs it: the integration run accepts
 * them unused (infra/local/iam/report.ts), where any other unused grant fails it.
 */
export const PLATFORM_UNTESTED: Record<string, string> = {
  // Authentication caches key owners and identity links per process; the local stack runs every function in one.
  [dynamoLine('access', 'GetItem', accessPartitions.key)]:
    'an API key whose owner the process has not cached yet (the first request of a key, in AWS per function)',
  [dynamoLine('access', 'BatchGetItem', accessPartitions.key)]:
    'an API key whose owner the process cached: not read where the tests call through the console only',
  [dynamoLine('access', 'GetItem', accessPartitions.identity)]:
    "a console session whose identity link the process has not cached yet: most routes' tests use API keys",
  [dynamoLine('access', 'UpdateItem', platformPartitions.authFailures)]:
    'a failed authentication is counted per key id and address: the tests send bad keys to a few routes',
  [dynamoLine('data', 'GetItem', clockPartitions.clock)]: "a sandbox key's clock: not read where the tests call with live keys only",
  [dynamoLine('access', 'PutItem', platformPartitions.signatures)]:
    'a live write signed with version 1 (its signature is accepted once): the tests sign most live writes with version 2',
  [dynamoLine('access', 'DeleteItem', platformPartitions.idempotency)]:
    'the Idempotency-Key is released after a transient failure (contention, 5xx), a refused signature, or a refusal after its early claim (authentication, scope, validation), so that a retry runs again',
  [dynamoLine('access', 'DeleteItem', platformPartitions.signatures)]:
    'a live write signed with version 1 and refused after its signature was recorded (scope, validation) forgets the record',
  [dynamoLine('access', 'GetItem', platformPartitions.config)]:
    'the cursor-signing key is read once a process (in AWS, per function): locally by the first list only',
  [dynamoLine('access', 'PutItem', platformPartitions.config)]: 'the first list of a deployment creates the cursor-signing key, whichever list it is',
  // shared/mail/deliver.ts: the functions that send e-mail may put it on the mail queue (allowMail).
  [`sqs:SendMessage on queue ${QUEUES.mail!.name}`]:
    'an e-mail SES refused goes on the mail queue, to be sent again: SES refuses only in the tests that make it',
};

/** Whether a route pages with a signed cursor: its query takes `cursor` (shared/http/pagination.ts). */
const pagesWithCursor = (route: RouteDef) => !!route.request?.query?.shape && 'cursor' in route.request.query.shape;

/** Everything a route's function does to the tables (the pipeline's part and the route's `dynamo`), and what its tests may leave unused. */
export function grantsOf(route: RouteDef): { dynamo: DynamoUse; untested: Record<string, string> } {
  const keyed = route.access === 'key';
  const dynamo = mergeUses(
    keyed ? KEYED_USE : undefined,
    keyed && route.write ? WRITE_USE : undefined,
    keyed && pagesWithCursor(route) ? CURSOR_USE : undefined,
    route.dynamo,
  );
  return { dynamo, untested: { ...PLATFORM_UNTESTED, ...route.untested } };
}
