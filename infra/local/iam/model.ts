import { ENTRY_METADATA, LOCAL_NAME_METADATA, LOCAL_PRINCIPAL_METADATA } from '../../constructs/local-names';
import type { CfnResource, SynthesizedStack } from './templates';

/** The account and region of the local stack's ARNs (the ones the Lambda context and the gateway events use). */
export const LOCAL_ACCOUNT = '123456789012';
export const LOCAL_REGION = 'us-east-1';

/** A resource of the local stack: what Ref and Fn::GetAtt give for it. */
export interface LocalResource {
  ref: string;
  attrs: Record<string, string>;
}

export interface PolicyDocument {
  Version?: string;
  Statement: Statement[] | Statement;
}
export interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** A role as the local stack authorizes it: its ARN and its identity policies, resolved to local names. */
export interface RoleModel {
  /** `function:<entry>` or `role:<logical id>`. */
  principal: string;
  /** The construct path of the function or role (for reports). */
  name: string;
  roleArn: string;
  policies: { name: string; document: PolicyDocument }[];
}

/** Everything the IAM layer evaluates: every role's policies, every resource policy, by ARN. */
export interface IamModel {
  roles: Record<string, RoleModel>;
  /** Resource policies (queues, buckets, topics, keys, functions' invoke permissions) by the ARN of the resource they govern. */
  resourcePolicies: Record<string, PolicyDocument[]>;
  /** Each role's trust policy (who may assume it), by role ARN. */
  trustPolicies: Record<string, PolicyDocument>;
  /** Managed policies that no role of the stack uses (e.g. the operators'), by logical id. */
  managedPolicies: Record<string, { name: string; document: PolicyDocument }>;
  /** Each function's environment variables as the template sets them, resolved to local names (by principal). */
  environments: Record<string, Record<string, unknown>>;
  /** Each function's ARN and log group name, by handler entry. */
  functions: Record<string, { arn: string; logGroup?: string }>;
  /** The log groups' subscription filters (infra/local/log-subscriptions.ts delivers what they match). */
  subscriptions: LogSubscription[];
  /** The user pools' Lambda triggers (LambdaConfig: CustomMessage, ...), which the local Cognito invokes. */
  userPoolTriggers: UserPoolTrigger[];
  /** The functions' asynchronous invocation settings (EventInvokeConfig), by function ARN (infra/local/async-invoke.ts applies them). */
  asyncConfigs: Record<string, AsyncConfig>;
}

/** An EventInvokeConfig: what Lambda does with an asynchronous event of the function (unset: Lambda's defaults). */
export interface AsyncConfig {
  maximumRetryAttempts?: number;
  maximumEventAgeInSeconds?: number;
  /** The on-failure destination's ARN. */
  onFailure?: string;
}

export interface UserPoolTrigger {
  userPoolArn: string;
  /** LambdaConfig's key: CustomMessage, PreSignUp, ... */
  trigger: string;
  functionArn: string;
}

export interface LogSubscription {
  logGroup: string;
  filterName: string;
  filterPattern: string;
  destinationArn: string;
}

const arn = (service: string, resource: string, region = LOCAL_REGION, account = LOCAL_ACCOUNT) => `arn:aws:${service}:${region}:${account}:${resource}`;

/** What a resource that has no local counterpart is called locally: its logical id, in the ARN shape of its type. */
function syntheticResource(path: string, id: string, r: CfnResource): LocalResource {
  const p = r.Properties ?? {};
  switch (r.Type) {
    case 'AWS::IAM::Role':
      return { ref: id, attrs: { Arn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/${id}`, RoleId: id } };
    case 'AWS::IAM::ManagedPolicy':
      return { ref: `arn:aws:iam::${LOCAL_ACCOUNT}:policy/${id}`, attrs: { PolicyArn: `arn:aws:iam::${LOCAL_ACCOUNT}:policy/${id}` } };
    case 'AWS::Lambda::Function':
      return { ref: id, attrs: { Arn: arn('lambda', `function:${id}`) } };
    case 'AWS::Logs::LogGroup': {
      // CloudFormation names a log group without LogGroupName after its stack: <stack name>-<logical id>-<suffix>.
      const name = (p.LogGroupName as string | undefined) ?? `${path.replace(/\//g, '-')}-${id}`;
      return { ref: name, attrs: { Arn: arn('logs', `log-group:${name}:*`) } };
    }
    case 'AWS::SNS::Topic':
      return { ref: arn('sns', id), attrs: { TopicArn: arn('sns', id), TopicName: id } };
    case 'AWS::KMS::Key':
      return { ref: id, attrs: { Arn: arn('kms', `key/${id}`), KeyId: id } };
    case 'AWS::SQS::Queue':
      return { ref: `https://sqs.${LOCAL_REGION}.amazonaws.com/${LOCAL_ACCOUNT}/${id}`, attrs: { Arn: arn('sqs', id), QueueName: id } };
    case 'AWS::S3::Bucket': {
      const name = (p.BucketName as string | undefined) ?? id.toLowerCase();
      return {
        ref: name,
        attrs: { Arn: `arn:aws:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com`, RegionalDomainName: `${name}.s3.${LOCAL_REGION}.amazonaws.com` },
      };
    }
    case 'AWS::Scheduler::ScheduleGroup': {
      const name = (p.Name as string | undefined) ?? id;
      return { ref: name, attrs: { Arn: arn('scheduler', `schedule-group/${name}`) } };
    }
    default:
      return { ref: id, attrs: { Arn: arn(r.Type.split('::')[1]!.toLowerCase(), id) } };
  }
}

/**
 * Resolves CloudFormation's intrinsic functions (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split) in the
 * synthesized templates, nested stacks' parameters and outputs included, to the local stack's names: a resource
 * marked with LocalName metadata gets its local counterpart's, any other one a name made from its logical id.
 */
export class TemplateResolver {
  private readonly byPath = new Map<string, SynthesizedStack>();

  constructor(
    stacks: SynthesizedStack[],
    private readonly locals: Record<string, LocalResource>,
  ) {
    for (const s of stacks) this.byPath.set(s.path, s);
  }

  stacks(): SynthesizedStack[] {
    return [...this.byPath.values()];
  }

  private stack(path: string): SynthesizedStack {
    const s = this.byPath.get(path);
    if (!s) throw new Error(`no synthesized stack ${path}`);
    return s;
  }

  /** The local counterpart of a resource of a stack. */
  resource(path: string, id: string): LocalResource {
    const r = this.stack(path).template.Resources?.[id];
    if (!r) throw new Error(`no resource ${id} in ${path}`);
    const local = r.Metadata?.[LOCAL_NAME_METADATA] as string | undefined;
    if (local) {
      const found = this.locals[local];
      if (!found) throw new Error(`the local stack has no ${local} (resource ${id} of ${path})`);
      return found;
    }
    return syntheticResource(path, id, r);
  }

  resolve(path: string, v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => this.resolve(path, x));
    if (!v || typeof v !== 'object') return v;
    // biome-ignore lint/suspicious/noExplicitAny: template JSON, whose intrinsic functions take any shape of argument.
    const o = v as Record<string, any>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys as [string];
      const a = o[k];
      switch (k) {
        case 'Ref':
          return this.ref(path, a as string);
        case 'Fn::GetAtt': {
          const [id, attr] = (typeof a === 'string' ? a.split(/\.(.*)/s) : a) as [string, string];
          return this.getAtt(path, id, attr);
        }
        case 'Fn::Join':
          return (this.resolve(path, a[1]) as unknown[]).flat().join(a[0]);
        case 'Fn::Select':
          return (this.resolve(path, a[1]) as unknown[])[Number(this.resolve(path, a[0]))];
        case 'Fn::Split':
          return String(this.resolve(path, a[1])).split(a[0]);
        case 'Fn::Sub': {
          const [text, vars] = (typeof a === 'string' ? [a, {}] : a) as [string, Record<string, unknown>];
          return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
            if (name in vars) return String(this.resolve(path, vars[name]));
            const dot = name.indexOf('.');
            return String(dot === -1 ? this.ref(path, name) : this.getAtt(path, name.slice(0, dot), name.slice(dot + 1)));
          });
        }
      }
      if (k.startsWith('Fn::')) throw new Error(`the IAM layer does not resolve ${k} (in ${path})`);
    }
    return Object.fromEntries(Object.entries(o).map(([key, x]) => [key, this.resolve(path, x)]));
  }

  private ref(path: string, name: string): unknown {
    switch (name) {
      case 'AWS::Region':
        return LOCAL_REGION;
      case 'AWS::AccountId':
        return LOCAL_ACCOUNT;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return path.replace(/\//g, '-');
      case 'AWS::StackId':
        return `arn:aws:cloudformation:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stack/${path.replace(/\//g, '-')}/local`;
      case 'AWS::NoValue':
        return undefined;
    }
    const s = this.stack(path);
    if (s.template.Resources?.[name]) return this.resource(path, name).ref;
    const param = s.template.Parameters?.[name];
    if (!param) throw new Error(`Ref ${name}: no resource or parameter of ${path}`);
    if (s.parent) {
      const holder = this.stack(s.parent.path).template.Resources?.[s.parent.logicalId];
      const given = holder?.Properties?.Parameters?.[name];
      if (given !== undefined) return this.resolve(s.parent.path, given);
    }
    return param.Default;
  }

  private getAtt(path: string, id: string, attr: string): unknown {
    const r = this.stack(path).template.Resources?.[id];
    if (r?.Type === 'AWS::CloudFormation::Stack' && attr.startsWith('Outputs.')) {
      const nested = this.stacks().find((s) => s.parent?.path === path && s.parent.logicalId === id);
      const out = nested?.template.Outputs?.[attr.slice('Outputs.'.length)];
      if (!nested || !out) throw new Error(`no output ${attr} of ${id} in ${path}`);
      return this.resolve(nested.path, out.Value);
    }
    const local = this.resource(path, id);
    return local.attrs[attr] ?? `${local.ref}.${attr}`;
  }
}

const refId = (v: unknown): string | undefined => {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.Ref === 'string') return o.Ref;
  const att = o['Fn::GetAtt'];
  if (Array.isArray(att)) return att[0] as string;
  return undefined;
};

/**
 * The IAM model of the synthesized service: every function's role (by handler entry, from the Entry metadata
 * ServiceFunction sets) and every other role with its identity policies (inline, AWS::IAM::Policy,
 * customer-managed), and the resource policies of queues, buckets, topics and keys, all resolved to local names.
 */
export function buildIamModel(stacks: SynthesizedStack[], locals: Record<string, LocalResource>): IamModel {
  const resolver = new TemplateResolver(stacks, locals);
  const roles: Record<string, RoleModel> = {};
  const resourcePolicies: Record<string, PolicyDocument[]> = {};
  const managedPolicies: IamModel['managedPolicies'] = {};
  const environments: IamModel['environments'] = {};
  const trustPolicies: IamModel['trustPolicies'] = {};
  const functions: IamModel['functions'] = {};
  const subscriptions: LogSubscription[] = [];
  const userPoolTriggers: UserPoolTrigger[] = [];
  const asyncConfigs: Record<string, AsyncConfig> = {};
  const addResourcePolicy = (target: string, doc: PolicyDocument) => {
    resourcePolicies[target] ??= [];
    resourcePolicies[target].push(doc);
  };
  for (const s of stacks) {
    const res = Object.entries(s.template.Resources ?? {});
    const resolve = <T>(v: unknown) => resolver.resolve(s.path, v) as T;
    const entries = new Map<string, string>();
    for (const [id, r] of res) {
      const entry = r.Metadata?.[ENTRY_METADATA] as string | undefined;
      const role = refId(r.Properties?.Role);
      if (r.Type !== 'AWS::Lambda::Function' || !entry || !role) continue;
      entries.set(role, entry);
      environments[`function:${entry}`] = resolve(r.Properties?.Environment?.Variables ?? {});
      const logGroup = r.Properties?.LoggingConfig?.LogGroup;
      functions[entry] = { arn: resolver.resource(s.path, id).attrs.Arn!, ...(logGroup ? { logGroup: resolve<string>(logGroup) } : {}) };
    }
    for (const [id, r] of res) {
      if (r.Type !== 'AWS::IAM::Role') continue;
      const entry = entries.get(id);
      const principal = entry ? `function:${entry}` : `role:${id}`;
      const policies: RoleModel['policies'] = [];
      for (const p of (r.Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[]) {
        policies.push({ name: p.PolicyName, document: resolve<PolicyDocument>(p.PolicyDocument) });
      }
      for (const [pid, p] of res) {
        if (p.Type !== 'AWS::IAM::Policy' && p.Type !== 'AWS::IAM::ManagedPolicy') continue;
        if (((p.Properties?.Roles ?? []) as unknown[]).some((x) => refId(x) === id)) {
          policies.push({ name: pid, document: resolve<PolicyDocument>(p.Properties!.PolicyDocument) });
        }
      }
      for (const m of (r.Properties?.ManagedPolicyArns ?? []) as unknown[]) {
        const mid = refId(m);
        const mp = mid ? s.template.Resources?.[mid] : undefined;
        if (mp?.Type !== 'AWS::IAM::ManagedPolicy') {
          // CDK's deploy-time handlers (bucket notifications, custom resources) never run locally.
          if (!entry) continue;
          throw new Error(`role ${id} of ${s.path} uses the managed policy ${JSON.stringify(resolve(m))}, which the IAM layer cannot read`);
        }
        policies.push({ name: mid!, document: resolve<PolicyDocument>(mp.Properties!.PolicyDocument) });
      }
      const roleArn = resolver.resource(s.path, id).attrs.Arn!;
      roles[principal] = { principal, name: `${s.path}/${id}`, roleArn, policies };
      if (r.Properties?.AssumeRolePolicyDocument) trustPolicies[roleArn] = resolve(r.Properties.AssumeRolePolicyDocument);
    }
    for (const [id, r] of res) {
      const p = r.Properties ?? {};
      switch (r.Type) {
        case 'AWS::IAM::ManagedPolicy': {
          if (((p.Roles ?? []) as unknown[]).length) break;
          const document = resolve<PolicyDocument>(p.PolicyDocument);
          managedPolicies[id] = { name: `${s.path}/${id}`, document };
          // A policy a local principal acts with (the operators'): that principal's role, locally.
          const principal = r.Metadata?.[LOCAL_PRINCIPAL_METADATA] as string | undefined;
          if (principal) {
            const roleArn = `arn:aws:iam::${LOCAL_ACCOUNT}:role/${principal}`;
            roles[principal] = { principal, name: `${s.path}/${id}`, roleArn, policies: [{ name: id, document }] };
          }
          break;
        }
        case 'AWS::SQS::QueuePolicy':
          for (const q of p.Queues as unknown[]) {
            const qid = refId(q);
            if (qid) addResourcePolicy(resolver.resource(s.path, qid).attrs.Arn!, resolve(p.PolicyDocument));
          }
          break;
        case 'AWS::S3::BucketPolicy': {
          const bid = refId(p.Bucket);
          if (bid) addResourcePolicy(resolver.resource(s.path, bid).attrs.Arn!, resolve(p.PolicyDocument));
          break;
        }
        case 'AWS::SNS::TopicPolicy':
          for (const t of p.Topics as unknown[]) addResourcePolicy(resolve<string>(t), resolve(p.PolicyDocument));
          break;
        case 'AWS::KMS::Key':
          if (p.KeyPolicy) addResourcePolicy(resolver.resource(s.path, id).attrs.Arn!, resolve(p.KeyPolicy));
          break;
        case 'AWS::Cognito::UserPool': {
          const userPoolArn = resolver.resource(s.path, id).attrs.Arn!;
          for (const [trigger, fn] of Object.entries((p.LambdaConfig ?? {}) as Record<string, unknown>)) {
            if (typeof fn === 'string' || refId(fn)) userPoolTriggers.push({ userPoolArn, trigger, functionArn: resolve<string>(fn) });
          }
          break;
        }
        case 'AWS::Logs::SubscriptionFilter':
          subscriptions.push({
            logGroup: resolve<string>(p.LogGroupName),
            filterName: resolve<string>(p.FilterName) ?? id,
            filterPattern: resolve<string>(p.FilterPattern),
            destinationArn: resolve<string>(p.DestinationArn),
          });
          break;
        case 'AWS::Lambda::EventInvokeConfig': {
          // The unqualified function's, which is what the services invoke ($LATEST).
          if (p.Qualifier !== '$LATEST') break;
          asyncConfigs[functionArn(resolve<string>(p.FunctionName))] = {
            ...(p.MaximumRetryAttempts !== undefined ? { maximumRetryAttempts: Number(p.MaximumRetryAttempts) } : {}),
            ...(p.MaximumEventAgeInSeconds !== undefined ? { maximumEventAgeInSeconds: Number(p.MaximumEventAgeInSeconds) } : {}),
            ...(p.DestinationConfig?.OnFailure?.Destination ? { onFailure: resolve<string>(p.DestinationConfig.OnFailure.Destination) } : {}),
          };
          break;
        }
        // An invoke permission is a statement of the function's resource policy.
        case 'AWS::Lambda::Permission': {
          const fnArn = functionArn(resolve<string>(p.FunctionName));
          const principal = resolve<string>(p.Principal);
          const conditions = {
            ...(p.SourceArn ? { ArnLike: { 'aws:SourceArn': resolve<string>(p.SourceArn) } } : {}),
            ...(p.SourceAccount ? { StringEquals: { 'aws:SourceAccount': resolve<string>(p.SourceAccount) } } : {}),
          };
          addResourcePolicy(fnArn, {
            Version: '2012-10-17',
            Statement: [
              {
                Sid: id,
                Effect: 'Allow',
                Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
                Action: resolve<string>(p.Action),
                Resource: fnArn,
                ...(Object.keys(conditions).length ? { Condition: conditions } : {}),
              },
            ],
          });
          break;
        }
      }
    }
  }
  return { roles, resourcePolicies, trustPolicies, managedPolicies, environments, functions, subscriptions, userPoolTriggers, asyncConfigs };
}

/** A function's ARN from what a template names it by (its name or its ARN). */
const functionArn = (fn: string) => (fn.startsWith('arn:') ? fn : `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${fn}`);
