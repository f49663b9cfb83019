import type { Assembly } from './assembly';
import { type CheckResult, type Finding, finding } from './findings';

/**
 * CloudFormation's quotas on a template (Understand CloudFormation quotas, the User Guide's table): each template
 * is counted on its own, nested ones included, as CloudFormation creates each as a stack of its own.
 */
export const CLOUDFORMATION_QUOTAS = {
  resources: 500,
  parameters: 200,
  outputs: 200,
  mappings: 200,
  /** Template body in an S3 object (every template here: the CLI uploads each to the assets bucket). */
  templateBytes: 1_000_000,
  descriptionBytes: 1_024,
  logicalIdCharacters: 255,
  stackNameCharacters: 128,
  /** Stacks per account and region (nested stacks count), the default quota. */
  stacksPerRegion: 2_000,
} as const;

export function checkQuotas(assembly: Assembly): CheckResult {
  const check = 'CloudFormation quotas';
  const q = CLOUDFORMATION_QUOTAS;
  const findings: Finding[] = [];
  const over = (where: string, what: string, n: number, max: number) => {
    if (n > max) findings.push(finding(check, 'error', where, `${n} ${what}: CloudFormation takes at most ${max}`));
    else if (n > max * 0.8) findings.push(finding(check, 'warning', where, `${n} ${what}, of at most ${max}: over 80 % of the quota`));
  };
  for (const s of assembly.stacks) {
    const t = s.template;
    over(s.name, 'resources', Object.keys(t.Resources ?? {}).length, q.resources);
    over(s.name, 'parameters', Object.keys(t.Parameters ?? {}).length, q.parameters);
    over(s.name, 'outputs', Object.keys(t.Outputs ?? {}).length, q.outputs);
    over(s.name, 'mappings', Object.keys(t.Mappings ?? {}).length, q.mappings);
    over(s.name, 'bytes of template', s.bytes, q.templateBytes);
    over(s.name, 'bytes of description', Buffer.byteLength(t.Description ?? ''), q.descriptionBytes);
    for (const id of [...Object.keys(t.Resources ?? {}), ...Object.keys(t.Outputs ?? {}), ...Object.keys(t.Parameters ?? {})]) {
      if (id.length > q.logicalIdCharacters)
        findings.push(finding(check, 'error', `${s.name} ${id.slice(0, 40)}...`, `a logical id of ${id.length} characters (at most ${q.logicalIdCharacters})`));
    }
    if (s.depth === 0 && s.name.length > q.stackNameCharacters)
      findings.push(finding(check, 'error', s.name, `a stack name of ${s.name.length} characters (at most ${q.stackNameCharacters})`));
  }
  const stacks = assembly.stacks.length;
  if (stacks > q.stacksPerRegion / 10)
    findings.push(finding(check, 'warning', assembly.dir, `${stacks} stacks (nested ones included) of the account's ${q.stacksPerRegion} per region`));
  const max = (f: (s: Assembly['stacks'][number]) => number) => Math.max(...assembly.stacks.map(f));
  return {
    check,
    findings,
    figures: {
      templates: stacks,
      'nested depth': max((s) => s.depth),
      'most resources': max((s) => Object.keys(s.template.Resources ?? {}).length),
      'most parameters': max((s) => Object.keys(s.template.Parameters ?? {}).length),
      'most outputs': max((s) => Object.keys(s.template.Outputs ?? {}).length),
      'largest template (bytes)': max((s) => s.bytes),
    },
  };
}
