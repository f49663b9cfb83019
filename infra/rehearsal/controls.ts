import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Assembly } from './assembly';
import { ACCEPTED_CONTROL_FAILURES } from './controls-accepted';
import { type CheckResult, type Finding, finding } from './findings';

/** One AWS Control Tower proactive control, as `@cdklabs/cdk-validator-cfnguard` ships it: its Guard rules and metadata. */
export interface Control {
  id: string;
  name: string;
  severity: string;
  file: string;
  /** The rule a template passes or fails (the one guarded by `is_cfn_template`). */
  rule: string;
  /** The resource types it evaluates: a template without them cannot fail it. */
  types: string[];
}

export interface ControlResult {
  control: Control;
  status: 'pass' | 'fail' | 'not applicable';
  /** The resources that fail it, as `<template> <logical id>`. */
  resources: string[];
}

const packageDir = () => dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json'));

/** The controls the package ships, each with its metadata. */
export function controlTowerControls(): Control[] {
  const root = join(packageDir(), 'rules', 'control-tower');
  const controls: Control[] = [];
  for (const service of readdirSync(join(root, 'cfn-guard')).sort()) {
    for (const name of readdirSync(join(root, 'cfn-guard', service)).filter((f) => f.endsWith('.guard'))) {
      const file = join(root, 'cfn-guard', service, name);
      const meta = JSON.parse(readFileSync(join(root, 'metadata', service, name.replace(/\.guard$/, '.metadata.json')), 'utf8')) as {
        Id: string;
        DisplayName: string;
        Severity: string;
        EvaluatedResourceTypes: string[];
      };
      const rule = /^rule (\w+) when is_cfn_template/m.exec(readFileSync(file, 'utf8'))?.[1];
      if (!rule) throw new Error(`${name}: no rule guarded by is_cfn_template`);
      controls.push({ id: meta.Id, name: meta.DisplayName, severity: meta.Severity, file, rule, types: meta.EvaluatedResourceTypes });
    }
  }
  return controls;
}

/** The cfn-guard binary the package ships for this machine (it names Linux "ubuntu", whatever the distribution). */
export function cfnGuardBinary(): string {
  const os = platform() === 'linux' ? 'ubuntu' : platform() === 'darwin' ? 'macos' : undefined;
  const cpu = arch() === 'x64' ? 'x86_64' : arch() === 'arm64' ? 'aarch64' : undefined;
  if (!os || !cpu) throw new Error(`cfn-guard is shipped for Linux and macOS on x64 and arm64, not ${platform()} ${arch()}`);
  const bin = join(packageDir(), 'bin', os, cpu, 'cfn-guard');
  if (!(statSync(bin).mode & 0o100)) chmodSync(bin, 0o755); // an npm cache may lose the mode
  return bin;
}

interface GuardOutput {
  name: string;
  compliant: string[];
  not_applicable: string[];
  not_compliant: { Rule?: { name: string } }[];
}

/**
 * Runs the controls over every template of the assembly, in one cfn-guard run. A control whose resource types the
 * assembly does not have is not applicable without running it (cfn-guard would skip it too, after parsing it).
 */
export function evaluateControls(assembly: Assembly, controls = controlTowerControls()): ControlResult[] {
  const byRule = new Map(controls.map((c) => [c.rule, c]));
  if (byRule.size !== controls.length) throw new Error('two controls share a rule name: the report could not tell them apart');
  const types = new Set(assembly.stacks.flatMap((s) => Object.values(s.template.Resources ?? {}).map((r) => r.Type)));
  const applicable = controls.filter((c) => c.types.some((t) => types.has(t)));
  const args = [
    'validate',
    ...applicable.flatMap((c) => ['--rules', c.file]),
    ...assembly.stacks.flatMap((s) => ['--data', s.file]),
    '--output-format',
    'json',
    '--show-summary',
    'none',
    '--structured',
  ];
  const run = spawnSync(cfnGuardBinary(), args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  // 19: some rule failed; 5: some rule was not applicable only. Anything else is cfn-guard failing.
  if (run.error || ![0, 5, 19].includes(run.status ?? -1))
    throw new Error(`cfn-guard failed (${run.status ?? run.error?.message}): ${run.stderr.slice(0, 2000)}`);
  const outputs = JSON.parse(run.stdout) as GuardOutput[];
  const results = new Map(controls.map((c) => [c.rule, { control: c, status: 'not applicable' as ControlResult['status'], resources: new Set<string>() }]));
  const stackOf = new Map(assembly.stacks.map((s) => [s.file, s.name]));
  for (const out of outputs) {
    for (const rule of out.compliant) {
      const r = results.get(rule);
      if (r && r.status === 'not applicable') r.status = 'pass';
    }
    for (const failure of out.not_compliant) {
      const r = results.get(failure.Rule?.name ?? '');
      if (!r) continue;
      r.status = 'fail';
      for (const [, id] of JSON.stringify(failure).matchAll(/"\/Resources\/([A-Za-z0-9]+)/g))
        r.resources.add(`${stackOf.get(out.name) ?? basename(out.name)} ${id}`);
    }
  }
  return [...results.values()].map((r) => ({ ...r, resources: [...r.resources].sort() }));
}

/**
 * AWS Control Tower's proactive controls over the assembly: an organisation that enables one refuses, at deploy, a
 * stack that fails it. A control the stack fails must be in ACCEPTED_CONTROL_FAILURES with the reason; a failure
 * not there fails the rehearsal, and so does an accepted failure that no longer fails (the list would lie).
 */
export function checkControls(assembly: Assembly): CheckResult & { results: ControlResult[] } {
  const check = 'Control Tower proactive controls';
  const results = evaluateControls(assembly);
  const findings: Finding[] = [];
  for (const r of results) {
    const accepted = ACCEPTED_CONTROL_FAILURES[r.control.id];
    if (r.status === 'fail' && !accepted) {
      findings.push(
        finding(
          check,
          'error',
          r.resources.slice(0, 3).join(', ') + (r.resources.length > 3 ? ` and ${r.resources.length - 3} more` : ''),
          `fails ${r.control.id} (${r.control.name}): fix it, or accept it with the reason in infra/rehearsal/controls-accepted.ts`,
        ),
      );
    }
    if (r.status !== 'fail' && accepted)
      findings.push(
        finding(
          check,
          'error',
          r.control.id,
          `is accepted as failing in infra/rehearsal/controls-accepted.ts but ${r.status === 'pass' ? 'passes' : 'no longer applies'}: take it out`,
        ),
      );
  }
  const count = (s: ControlResult['status']) => results.filter((r) => r.status === s).length;
  return {
    check,
    findings,
    results,
    figures: { controls: results.length, passed: count('pass'), failed: count('fail'), 'not applicable': count('not applicable') },
  };
}
