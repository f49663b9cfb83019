import { type Assembly, readAssembly } from './assembly';
import { checkAssets } from './assets';
import { type ControlResult, checkControls } from './controls';
import { ACCEPTED_CONTROL_FAILURES } from './controls-accepted';
import type { CheckResult, Finding } from './findings';
import { checkIam } from './iam';
import { checkLambda } from './lambda';
import { checkQuotas } from './quotas';
import { checkSchemas } from './schema';

export interface Rehearsal {
  region: string;
  account: string;
  results: CheckResult[];
  controls: ControlResult[];
  errors: Finding[];
  warnings: Finding[];
}

/**
 * Checks a cloud assembly as CloudFormation and the services would at create time (see each check), from AWS's
 * published schemas, quotas and controls. Synth-time findings (cdk-nag, the CDK's own validation) stop the synth
 * before this runs.
 */
export function checkAssembly(dir: string): Rehearsal {
  const assembly: Assembly = readAssembly(dir);
  const { region, account } = assembly.stacks[0]!;
  const controls = checkControls(assembly);
  const results = [...checkSchemas(assembly), checkQuotas(assembly), checkAssets(assembly), checkIam(assembly), checkLambda(assembly), controls];
  const all = results.flatMap((r) => r.findings);
  return {
    region,
    account,
    results,
    controls: controls.results,
    errors: all.filter((f) => f.level === 'error'),
    warnings: all.filter((f) => f.level === 'warning'),
  };
}

/** The report a deploying team reads: one line per check with its figures, then every error and warning. */
export function formatRehearsal(r: Rehearsal): string {
  const lines = [`Rehearsal of the deploy to account ${r.account}, ${r.region}:`];
  for (const c of r.results) {
    const figures = Object.entries(c.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const n = (level: Finding['level']) => c.findings.filter((f) => f.level === level).length;
    lines.push(
      `  ${n('error') ? 'FAIL' : 'ok  '} ${c.check}: ${figures}${n('error') ? `; ${n('error')} error(s)` : ''}${n('warning') ? `; ${n('warning')} warning(s)` : ''}`,
    );
  }
  for (const [level, findings] of [
    ['error', r.errors],
    ['warning', r.warnings],
  ] as const) {
    for (const { first, where, count } of grouped(findings)) {
      lines.push(`  ${level.padEnd(7)} [${first.check}] ${where.slice(0, 3).join(', ')}${count > 3 ? ` and ${count - 3} more` : ''}: ${first.message}`);
    }
  }
  const failing = r.controls.filter((c) => c.status === 'fail');
  if (failing.length) {
    lines.push(`  An organisation that enables these Control Tower proactive controls refuses this stack (docs/operations/deploying.md):`);
    for (const c of failing) lines.push(`    ${c.control.id} (${c.control.severity}) ${c.control.name}: ${c.resources.length} resource(s)`);
  }
  return lines.join('\n');
}

/** Findings that say the same of several resources, once with the resources named. */
function grouped(findings: Finding[]): { first: Finding; where: string[]; count: number }[] {
  const groups = new Map<string, { first: Finding; where: string[]; count: number }>();
  for (const f of findings) {
    const g = groups.get(`${f.check}\0${f.message}`) ?? { first: f, where: [], count: 0 };
    g.where.push(f.where);
    g.count++;
    groups.set(`${f.check}\0${f.message}`, g);
  }
  return [...groups.values()];
}

export const CONTROLS_BEGIN = '<!-- rehearsal:controls -->';
export const CONTROLS_END = '<!-- /rehearsal:controls -->';

/** The controls part of docs/operations/deploying.md, from a rehearsal: what an organisation must know before it deploys. */
export function controlsSection(r: Rehearsal): string {
  const count = (s: ControlResult['status']) => r.controls.filter((c) => c.status === s).length;
  const failing = r.controls.filter((c) => c.status === 'fail');
  const passing = r.controls.filter((c) => c.status === 'pass');
  return [
    CONTROLS_BEGIN,
    `Of the ${r.controls.length} AWS Control Tower proactive controls (\`@cdklabs/cdk-validator-cfnguard\`), the stack passes ${count('pass')}, knowingly fails ${count('fail')}, and ${count('not applicable')} do not apply (it has none of their resource types). Produced by \`npm run rehearse\` (${r.region}).`,
    '',
    '| control | severity | resources | why the stack fails it |',
    '|---|---|---|---|',
    ...failing.map(
      (c) =>
        `| ${c.control.id}: ${c.control.name} | ${c.control.severity} | ${c.resources.length} | ${ACCEPTED_CONTROL_FAILURES[c.control.id] ?? '(not accepted: the rehearsal fails)'} |`,
    ),
    '',
    `Passed: ${passing.map((c) => c.control.id).join(', ')}.`,
    CONTROLS_END,
  ].join('\n');
}
