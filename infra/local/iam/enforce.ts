import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createValidatedPolicy, type ValidatedPolicy, validateIdentityPolicy, validateResourcePolicy, validateTrustPolicy } from '@cloud-copilot/iam-policy';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { Client, ServiceException } from '@smithy/core/client';
import { type IamModel, LOCAL_ACCOUNT, LOCAL_REGION, type PolicyDocument, type Statement } from './model';
import { currentCaller } from './principal';
import { type IamRequest, iamRequestsFor } from './requests';

/** What one authorization decided, and which statements of which policies allowed it. */
export interface Decision {
  allowed: boolean;
  explicit: boolean;
  /** `policy#statement index` of each identity or resource statement that allowed the request. */
  allowedBy: string[];
}

/** One refused call, as the layer records it (the run's report fails on any that no test expected). */
export interface DenyRecord {
  principal: string;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  reason: string;
  at: string;
}

/** How one principal used one `action resource`. */
export interface UsedCall {
  count: number;
  /** `policy#statement index` of every statement that allowed a call. */
  allowedBy: string[];
  /** DynamoDB: the partitions reached, each as the prefix of its kind (partitionOf), for the report's reader. */
  partitions?: string[];
  /** DynamoDB: per allowing statement with dynamodb:LeadingKeys patterns, the patterns the calls' partition keys fell under. */
  patterns?: Record<string, string[]>;
}

/** The usage of one principal: per `action resource`, how it was used. */
export type Usage = Record<string, Record<string, UsedCall>>;

/** A partition key as the prefix of its kind: its text up to the first `#`, then `*`; one without `#` as it is. */
export const partitionOf = (key: string) => (key.includes('#') ? `${key.slice(0, key.indexOf('#') + 1)}*` : key);

/** A StringLike or ARN pattern as a regular expression (`*` any run of characters, `?` one). */
export const likePattern = (p: string) =>
  new RegExp(
    `^${p
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    's',
  );

/** Adds the values to a sorted list of distinct values, in place; returns the list. */
function addAll(list: string[], values: Iterable<string>): string[] {
  for (const v of values) if (!list.includes(v)) list.push(v);
  return list.sort();
}

const statements = (d: PolicyDocument): Statement[] => [d.Statement].flat();

/** The service principals AWS services call with (S3 notifications, CloudWatch alarms, ...): `service:<host>`. */
const servicePrincipal = (principal: string) => (principal.startsWith('service:') ? principal.slice('service:'.length) : undefined);

/**
 * Authorizes requests against the IAM model with @cloud-copilot/iam-simulate (identity and resource policies,
 * every condition operator), as AWS would for the principal making them. Decisions are cached: a request is
 * decided by its principal, action, resource and condition keys, where dynamodb:LeadingKeys values count only by
 * which of the model's LeadingKeys patterns each matches (the policies compare them with StringLike/StringEquals
 * only; the model is checked for that).
 */
export class Authorizer {
  private readonly identity = new Map<string, ValidatedPolicy<{ name: string }>[]>();
  private readonly resource = new Map<string, ValidatedPolicy<{ name: string }>>();
  private readonly trust = new Map<string, ValidatedPolicy<{ name: string }>>();
  private readonly statementIds = new Map<string, string>();
  private readonly cache = new Map<string, Promise<Decision>>();
  private readonly leadingKeyPatterns: RegExp[] | undefined;
  /** The dynamodb:LeadingKeys patterns of each statement that has some, by statement id. */
  private readonly statementPatterns = new Map<string, { text: string; re: RegExp }[]>();
  readonly usage: Usage = {};
  /** Authorizations decided, evaluations run (cache misses), and the milliseconds the evaluations took. */
  readonly stats = { authorizations: 0, evaluations: 0, evaluationMs: 0 };

  constructor(readonly model: IamModel) {
    const patterns = new Set<string>();
    let exact = false;
    const scan = (d: PolicyDocument) => {
      for (const s of statements(d)) {
        for (const [op, cond] of Object.entries(s.Condition ?? {})) {
          for (const [key, values] of Object.entries(cond)) {
            if (key.toLowerCase() !== 'dynamodb:leadingkeys') continue;
            if (!/^(ForAllValues:|ForAnyValue:)?String(Equals|Like)(IfExists)?$/.test(op)) exact = true;
            for (const v of [values].flat()) patterns.add(String(v));
          }
        }
      }
    };
    for (const role of Object.values(model.roles)) {
      for (const p of role.policies) {
        statements(p.document).forEach((s, j) => {
          this.statementIds.set(`${role.principal}\0${JSON.stringify(s)}`, `${p.name}#${j}`);
          const keys = Object.values(s.Condition ?? {}).flatMap((c) =>
            Object.entries(c).flatMap(([k, v]) => (k.toLowerCase() === 'dynamodb:leadingkeys' ? [v].flat().map(String) : [])),
          );
          if (keys.length)
            this.statementPatterns.set(
              `${p.name}#${j}`,
              keys.map((text) => ({ text, re: likePattern(text) })),
            );
        });
        scan(p.document);
      }
    }
    for (const [target, docs] of Object.entries(model.resourcePolicies)) {
      docs.flatMap(statements).forEach((s, j) => {
        this.statementIds.set(`${target}\0${JSON.stringify(s)}`, `resource policy of ${target}#${j}`);
      });
      for (const d of docs) scan(d);
    }
    this.leadingKeyPatterns = exact ? undefined : [...patterns].map(likePattern);
  }

  /** A principal's identity policies, validated at their first use (a CLI process uses a handful of the model's). */
  private identityOf(principal: string) {
    return cached(this.identity, principal, () =>
      (this.model.roles[principal]?.policies ?? []).map((p, i) => createValidatedPolicy(p.document, validateIdentityPolicy, { name: `${p.name}.${i}` })),
    );
  }

  private resourcePolicy(target: string) {
    const docs = this.model.resourcePolicies[target];
    if (!docs) return undefined;
    return cached(this.resource, target, () =>
      createValidatedPolicy({ Version: '2012-10-17', Statement: docs.flatMap(statements) }, validateResourcePolicy, { name: `resource policy of ${target}` }),
    );
  }

  private trustPolicy(role: string) {
    const doc = this.model.trustPolicies[role];
    if (!doc) return undefined;
    return cached(this.trust, role, () => createValidatedPolicy(doc, validateTrustPolicy, { name: `trust policy of ${role}` }));
  }

  /** The role ARN a principal calls as (a service principal has none). */
  roleArn(principal: string): string | undefined {
    return this.model.roles[principal]?.roleArn;
  }

  knows(principal: string): boolean {
    return !!servicePrincipal(principal) || principal in this.model.roles;
  }

  /** The resource policy that governs `resource` (a bucket's for its objects; a role's trust policy for AssumeRole). */
  private resourcePolicyFor(resource: string, action: string) {
    if (action === 'sts:AssumeRole') return this.trustPolicy(resource);
    const bucket = /^arn:aws:s3:::([^/]+)\//.exec(resource);
    return this.resourcePolicy(resource) ?? (bucket ? this.resourcePolicy(`arn:aws:s3:::${bucket[1]}`) : undefined);
  }

  private cacheKey(principal: string, r: IamRequest): string {
    const ctx = Object.entries(r.context)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => {
        if (k === 'dynamodb:LeadingKeys' && this.leadingKeyPatterns) {
          const classes = [...new Set([v].flat().map((x) => this.leadingKeyPatterns!.map((p) => (p.test(x) ? 1 : 0)).join('')))].sort();
          return `${k}=${classes.join('|')}`;
        }
        return `${k}=${JSON.stringify(v)}`;
      });
    return [principal, r.action, r.resource, ...ctx].join('\0');
  }

  /** Decides one request for `principal`, and counts it in the usage. */
  async authorize(principal: string, r: IamRequest): Promise<Decision> {
    const key = this.cacheKey(principal, r);
    let p = this.cache.get(key);
    this.stats.authorizations++;
    if (!p) {
      const started = performance.now();
      p = this.evaluate(principal, r).finally(() => {
        this.stats.evaluations++;
        this.stats.evaluationMs += performance.now() - started;
      });
      this.cache.set(key, p);
    }
    const d = await p;
    if (d.allowed) this.record(principal, r, d);
    return d;
  }

  /** Counts an allowed call in the usage: the statements that allowed it and, for DynamoDB, the partitions it reached. */
  private record(principal: string, r: IamRequest, d: Decision) {
    this.usage[principal] ??= {};
    const used = `${r.action} ${r.resource}`;
    this.usage[principal][used] ??= { count: 0, allowedBy: [] };
    const u = this.usage[principal][used];
    u.count++;
    addAll(u.allowedBy, d.allowedBy);
    const keys = r.context['dynamodb:LeadingKeys'];
    if (!keys) return;
    const values = [keys].flat();
    u.partitions = addAll(u.partitions ?? [], values.map(partitionOf));
    for (const id of d.allowedBy) {
      const patterns = this.statementPatterns.get(id);
      if (!patterns) continue;
      u.patterns ??= {};
      u.patterns[id] = addAll(
        u.patterns[id] ?? [],
        patterns.filter((p) => values.some((v) => p.re.test(v))).map((p) => p.text),
      );
    }
  }

  private async evaluate(principal: string, r: IamRequest): Promise<Decision> {
    const service = servicePrincipal(principal);
    const roleArn = this.roleArn(principal);
    const resourcePolicy = this.resourcePolicyFor(r.resource, r.action);
    const result = await runSimulation(
      {
        identityPolicies: service ? [] : this.identityOf(principal).map((policy) => ({ name: policy.metadata!.name, policy })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
        request: {
          action: r.action,
          principal: service ?? roleArn!,
          resource: { accountId: LOCAL_ACCOUNT, resource: r.resource },
          contextVariables: {
            // What AWS sets on every call a Lambda function's SDK makes: TLS, the caller, the region.
            'aws:SecureTransport': 'true',
            'aws:RequestedRegion': LOCAL_REGION,
            ...(service ? { 'aws:SourceAccount': LOCAL_ACCOUNT } : { 'aws:PrincipalArn': roleArn!, 'aws:PrincipalAccount': LOCAL_ACCOUNT }),
            ...r.context,
          },
        },
      },
      {},
    );
    if (result.resultType === 'error') {
      throw new Error(`the IAM layer could not evaluate ${r.action} on ${r.resource} for ${principal}: ${JSON.stringify(result.errors)}`);
    }
    const single = result.resultType === 'single' ? result.result : result.results[0]!;
    const analysis = single.analysis;
    const owner = (s: unknown, by: string) => this.statementIds.get(`${by}\0${JSON.stringify(s)}`) ?? 'unknown statement';
    const allowedBy = [
      ...(analysis?.identityAnalysis?.allowStatements ?? []).map((s) => owner(s.statement, principal)),
      ...(analysis?.resourceAnalysis?.allowStatements ?? []).map((s) =>
        owner(s.statement, resourcePolicy ? r.resource.replace(/^(arn:aws:s3:::[^/]+)\/.*$/, '$1') : ''),
      ),
    ];
    return { allowed: result.overallResult === 'Allowed', explicit: result.overallResult === 'ExplicitlyDenied', allowedBy };
  }
}

/** The error AWS answers a refused call with, per service, as the SDK raises it. */
const DENIED: Record<string, { name: string; status: number }> = {
  DynamoDBClient: { name: 'AccessDeniedException', status: 400 },
  SQSClient: { name: 'AccessDenied', status: 403 },
  S3Client: { name: 'AccessDenied', status: 403 },
  SchedulerClient: { name: 'AccessDeniedException', status: 403 },
  CognitoIdentityProviderClient: { name: 'AccessDeniedException', status: 400 },
  SESv2Client: { name: 'AccessDeniedException', status: 403 },
};

export interface Enforcement {
  authorizer: Authorizer;
  /**
   * Authorizes what an AWS service does in the local runtime without an SDK call (CloudWatch Logs invoking a
   * subscription's function): a refusal is recorded as a deny, as a refused call is, and answered false.
   */
  allows(principal: string, r: IamRequest): Promise<boolean>;
  /** Writes the usage counted so far (the report reads it). */
  flush(): void;
}

type Input = Record<string, unknown>;
/** Any client of the SDK: what the layer touches of it is its middleware stack. */
type SdkClient = Pick<Client<never, never, never, never>, 'middlewareStack'>;

let installed: { authorize: (clientName: string, commandName: string, input: Input) => Promise<void> } | undefined;

const MIDDLEWARE = 'localIamEnforcement';
const stacks = new WeakSet<object>();

/** Adds the authorization step to a client's middleware stack (once). */
function guard(client: SdkClient) {
  const stack = client.middlewareStack;
  if (stacks.has(stack)) return;
  stacks.add(stack);
  stack.add(
    (next, context) => async (args) => {
      const clientName = context.clientName as string;
      const commandName = context.commandName as string;
      const input = (args as { input: Input }).input;
      await installed?.authorize(clientName, commandName, input);
      try {
        return await next(args);
      } catch (e) {
        // S3 hides whether an object exists from a caller that may not list its bucket: 403, not 404.
        const name = (e as Error).name;
        if (installed && clientName === 'S3Client' && (name === 'NoSuchKey' || name === 'NotFound')) {
          await installed.authorize('S3Client', 'ListObjectsV2Command', { Bucket: input.Bucket, Prefix: input.Key });
        }
        throw e;
      }
    },
    // After serialization: a DynamoDB document client's input is marshalled by then (its keys are {S: ...}).
    { step: 'build', priority: 'high', name: MIDDLEWARE, override: true },
  );
}

/**
 * Enforces IAM on every AWS SDK call made in this process by a known principal (infra/local/iam/principal.ts):
 * each authorization the call needs (iamRequestsFor) is decided against the model, and a refusal raises the
 * error the SDK raises in AWS before anything reaches the local server. Calls made outside any principal (the
 * local runtime provisioning its servers) are not checked. Records every deny in `dir`/denies.jsonl at once
 * and the usage in `dir`/usage-<pid>.json on flush().
 */
export function enforceIam(model: IamModel, dir: string, log: (line: string) => void = () => undefined): Enforcement {
  const authorizer = new Authorizer(model);
  mkdirSync(dir, { recursive: true });
  const deny = (principal: string, r: IamRequest, reason: string) => {
    const record: DenyRecord = { principal, action: r.action, resource: r.resource, context: r.context, reason, at: new Date().toISOString() };
    appendFileSync(join(dir, 'denies.jsonl'), `${JSON.stringify(record)}\n`);
    log(`[iam] denied ${principal}: ${r.action} on ${r.resource} (${reason})`);
  };
  installed = {
    authorize: async (clientName, commandName, input) => {
      const caller = currentCaller();
      if (!caller) return;
      const { principal } = caller;
      const requests = iamRequestsFor(clientName, commandName, input)?.map((r) => ({ ...r, context: { ...caller.context, ...r.context } }));
      const status = DENIED[clientName] ?? { name: 'AccessDeniedException', status: 403 };
      const refuse = (r: IamRequest, reason: string) => {
        deny(principal, r, reason);
        const who = authorizer.roleArn(principal)?.replace(/^arn:aws:iam::(\d+):role\/(.*)$/, 'arn:aws:sts::$1:assumed-role/$2/local') ?? principal;
        throw new ServiceException({
          name: status.name,
          $fault: 'client',
          $metadata: { httpStatusCode: status.status, requestId: 'local-iam', attempts: 1, totalRetryDelay: 0 },
          message: `User: ${who} is not authorized to perform: ${r.action} on resource: ${r.resource} ${reason}`,
        });
      };
      if (!requests) refuse({ action: `${clientName}:${commandName}`, resource: '*', context: {} }, 'because the local IAM layer does not know this service');
      if (!authorizer.knows(principal)) refuse(requests![0]!, `because ${principal} has no role in the synthesized templates`);
      for (const r of requests!) {
        const d = await authorizer.authorize(principal, r);
        if (!d.allowed) {
          refuse(r, d.explicit ? 'with an explicit deny in a policy' : `because no identity-based policy allows the ${r.action} action`);
        }
      }
    },
  };
  // Every client of the SDK, whoever made it: the middleware joins a client's stack at its first call.
  const send = Client.prototype.send;
  if (!(send as { iam?: boolean }).iam) {
    const patched = function (this: SdkClient, ...args: unknown[]) {
      guard(this);
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    };
    (patched as { iam?: boolean }).iam = true;
    Client.prototype.send = patched as typeof send;
  }
  presigning();
  return {
    authorizer,
    allows: async (principal, r) => {
      const d = await authorizer.authorize(principal, r);
      if (!d.allowed) deny(principal, r, d.explicit ? 'with an explicit deny in a policy' : `because no policy allows the ${r.action} action`);
      return d.allowed;
    },
    flush: () => {
      writeFileSync(join(dir, `usage-${process.pid}.json`), JSON.stringify(authorizer.usage));
      writeFileSync(join(dir, `stats-${process.pid}.json`), JSON.stringify(authorizer.stats));
    },
  };
}

const require = createRequire(import.meta.url);

/**
 * Presigned URLs and POSTs are signed with the function's credentials and authorized by S3 when they are used,
 * as the role that signed them: the layer authorizes them when they are made. getSignedUrl runs a copy of the
 * client's middleware (with the authorization step once the client has it); createPresignedPost runs none, so
 * its upload is authorized here. Patched on the packages' exports before any handler imports them.
 */
function presigning() {
  const url = require('@aws-sdk/s3-request-presigner') as { getSignedUrl: (client: SdkClient, ...rest: unknown[]) => unknown };
  const post = require('@aws-sdk/s3-presigned-post') as { createPresignedPost: (client: SdkClient, params: Input) => Promise<unknown> };
  if ((url.getSignedUrl as { iam?: boolean }).iam) return;
  const getSignedUrl = url.getSignedUrl;
  url.getSignedUrl = Object.assign(
    (client: SdkClient, ...rest: unknown[]) => {
      guard(client);
      return getSignedUrl(client, ...rest);
    },
    { iam: true },
  );
  const createPresignedPost = post.createPresignedPost;
  post.createPresignedPost = async (client, params) => {
    await installed?.authorize('S3Client', 'PutObjectCommand', params);
    return createPresignedPost(client, params);
  };
}

/** The map's value for `key`, made and kept at its first use. */
function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}
