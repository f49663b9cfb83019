import { type Assembly, resourcesOf, type StackTemplate } from './assembly';
import { type CheckResult, type Finding, finding } from './findings';
import { deployedText } from './values';

/** IAM's quotas on policy documents (IAM and AWS STS quotas), counted without white space as IAM counts them. */
export const IAM_QUOTAS = {
  /** All the inline policies of one role together. */
  roleInlineCharacters: 10_240,
  managedPolicyCharacters: 6_144,
  /** A role's trust policy, the default (a quota increase takes it to 4 096). */
  trustPolicyCharacters: 2_048,
} as const;

/** The condition keys that bound a service principal to this account's own resources (cross-service confused deputy prevention). */
const SOURCE_KEYS = ['aws:sourceaccount', 'aws:sourcearn', 'aws:sourceorgid', 'aws:sourceorgpaths'];

interface Statement {
  Effect?: string;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** A policy document with every intrinsic replaced by the text it becomes, as IAM measures it. */
function deployedDocument(doc: unknown, stack: StackTemplate): unknown {
  if (Array.isArray(doc)) return doc.map((d) => deployedDocument(d, stack));
  if (doc && typeof doc === 'object') {
    const keys = Object.keys(doc);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'))) return deployedText(doc, stack);
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, deployedDocument(v, stack)]));
  }
  return doc;
}

export const policyCharacters = (doc: unknown, stack: StackTemplate) => JSON.stringify(deployedDocument(doc, stack)).replace(/\s/g, '').length;

const servicesOf = (principal: unknown): string[] => {
  const service = (principal as { Service?: unknown } | undefined)?.Service;
  return [service ?? []].flat().map((s) => (typeof s === 'string' ? s : JSON.stringify(s)));
};

const bounded = (s: Statement) => Object.values(s.Condition ?? {}).some((block) => Object.keys(block).some((k) => SOURCE_KEYS.includes(k.toLowerCase())));

/**
 * IAM documents as IAM takes them at create time: the sizes of each role's inline policies, each managed policy and
 * each trust policy; and every service principal of a trust or resource policy bounded to this account's own
 * resources by aws:SourceAccount or aws:SourceArn, as AWS's confused-deputy guidance asks (a Lambda permission by
 * its SourceAccount or SourceArn property).
 */
export function checkIam(assembly: Assembly): CheckResult {
  const check = 'IAM documents';
  const findings: Finding[] = [];
  const inline = new Map<string, { stack: StackTemplate; characters: number }>();
  let roles = 0;
  let servicePrincipals = 0;
  let largestInline = 0;
  const unbounded = (where: string, statements: Statement[], what: string) => {
    for (const s of statements.filter((x) => x.Effect === 'Allow')) {
      for (const service of servicesOf(s.Principal)) {
        servicePrincipals++;
        if (!bounded(s))
          findings.push(finding(check, 'error', where, `${what} lets ${service} act without aws:SourceAccount or aws:SourceArn (confused deputy)`));
      }
    }
  };
  for (const [stack, id, r] of resourcesOf(assembly)) {
    const p = r.Properties ?? {};
    const where = `${stack.name} ${id}`;
    switch (r.Type) {
      case 'AWS::IAM::Role': {
        roles++;
        const trust = policyCharacters(p.AssumeRolePolicyDocument, stack);
        if (trust > IAM_QUOTAS.trustPolicyCharacters)
          findings.push(finding(check, 'error', where, `a trust policy of ${trust} characters (at most ${IAM_QUOTAS.trustPolicyCharacters})`));
        unbounded(where, (p.AssumeRolePolicyDocument as { Statement?: Statement[] })?.Statement ?? [], 'its trust policy');
        const own = ((p.Policies as { PolicyDocument: unknown }[] | undefined) ?? []).reduce((n, x) => n + policyCharacters(x.PolicyDocument, stack), 0);
        const key = `${stack.name}\0${id}`;
        inline.set(key, { stack, characters: (inline.get(key)?.characters ?? 0) + own });
        break;
      }
      case 'AWS::IAM::Policy':
      case 'AWS::IAM::RolePolicy': {
        const characters = policyCharacters(p.PolicyDocument, stack);
        const targets = r.Type === 'AWS::IAM::Policy' ? ((p.Roles as unknown[] | undefined) ?? []) : [p.RoleName];
        for (const role of targets) {
          const ref = (role as { Ref?: string } | undefined)?.Ref;
          const key = ref && stack.template.Resources[ref] ? `${stack.name}\0${ref}` : `${stack.name}\0${JSON.stringify(role)}`;
          inline.set(key, { stack, characters: (inline.get(key)?.characters ?? 0) + characters });
        }
        break;
      }
      case 'AWS::IAM::ManagedPolicy': {
        const characters = policyCharacters(p.PolicyDocument, stack);
        if (characters > IAM_QUOTAS.managedPolicyCharacters)
          findings.push(finding(check, 'error', where, `a managed policy of ${characters} characters (at most ${IAM_QUOTAS.managedPolicyCharacters})`));
        break;
      }
      case 'AWS::SQS::QueuePolicy':
      case 'AWS::SNS::TopicPolicy':
      case 'AWS::S3::BucketPolicy':
        unbounded(where, (p.PolicyDocument as { Statement?: Statement[] })?.Statement ?? [], 'its resource policy');
        break;
      case 'AWS::KMS::Key':
        unbounded(where, (p.KeyPolicy as { Statement?: Statement[] })?.Statement ?? [], 'its key policy');
        break;
      case 'AWS::Lambda::Permission': {
        const principal = typeof p.Principal === 'string' ? p.Principal : '';
        if (!principal.endsWith('.amazonaws.com')) break;
        servicePrincipals++;
        if (!p.SourceArn && !p.SourceAccount)
          findings.push(finding(check, 'error', where, `lets ${principal} invoke the function without SourceArn or SourceAccount (confused deputy)`));
        break;
      }
    }
  }
  for (const [key, { characters }] of inline) {
    largestInline = Math.max(largestInline, characters);
    if (characters > IAM_QUOTAS.roleInlineCharacters) {
      findings.push(
        finding(
          check,
          'error',
          key.replace('\0', ' '),
          `inline policies of ${characters} characters in all (a role takes at most ${IAM_QUOTAS.roleInlineCharacters})`,
        ),
      );
    } else if (characters > IAM_QUOTAS.roleInlineCharacters * 0.8) {
      findings.push(
        finding(
          check,
          'warning',
          key.replace('\0', ' '),
          `inline policies of ${characters} characters, over 80 % of a role's ${IAM_QUOTAS.roleInlineCharacters}`,
        ),
      );
    }
  }
  return { check, findings, figures: { roles, 'service principals': servicePrincipals, 'largest inline policies (characters)': largestInline } };
}
