import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext, LEFT_FLAGS } from '../../infra/feature-flags';

/**
 * What `cdk init app --language typescript` of the installed CDK CLI writes in cdk.json's context: its template's
 * context, then the flags the CLI recommends (aws-cdk's lib/commands/init/init.js, applyFutureFlags).
 */
function initFlags(): Record<string, unknown> {
  const cli = dirname(createRequire(import.meta.url).resolve('aws-cdk/package.json'));
  const templates = join(cli, 'lib', 'init-templates');
  const read = (file: string) => JSON.parse(readFileSync(join(templates, file), 'utf8'));
  return { ...(read('app/typescript/cdk.template.json').context ?? {}), ...read('.recommended-feature-flags.json') };
}

/** The flags deploying.md's "CDK feature flags" says are left, as flag -> [value, reason]; none: `**Left ...**: none`. */
function leftInDocs(): { none: boolean; rows: Record<string, [unknown, string]> } {
  const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'operations', 'deploying.md'), 'utf8');
  const section = page.split(/^## /m).find((s) => s.startsWith('CDK feature flags\n'));
  if (!section) throw new Error('deploying.md has no "## CDK feature flags" section');
  const left = section.slice(section.indexOf('**Left'));
  const table = left.slice(0, left.search(/\n\n(?!\|)/) + 1 || undefined);
  const rows = [...table.matchAll(/^\| `([^`]+)` \| `([^`]+)` \| (.+) \|$/gm)].map((m): [string, [unknown, string]] => [m[1]!, [JSON.parse(m[2]!), m[3]!]]);
  return { none: /^\*\*Left[^*]*\*\*:? none\b/.test(left), rows: Object.fromEntries(rows) };
}

describe("the CDK feature flags (cdk.json's context)", () => {
  const init = initFlags();
  const context = cdkJsonContext();

  it("are exactly the flags `cdk init` of the installed CLI writes, so that a CLI upgrade's new ones show here", () => {
    expect(Object.keys(init).length).toBeGreaterThan(80);
    expect(Object.keys(context).sort()).toEqual(Object.keys(init).sort());
  });

  it('each at the value the CLI recommends, or left at another for a reason (LEFT_FLAGS)', () => {
    for (const [flag, recommended] of Object.entries(init)) {
      const left = LEFT_FLAGS[flag];
      if (left) {
        expect(context[flag], flag).toEqual(left.value);
        expect(left.value, `${flag} is left at the recommended value: take it off LEFT_FLAGS`).not.toEqual(recommended);
        expect(left.reason.length, flag).toBeGreaterThan(20);
      } else expect(context[flag], flag).toEqual(recommended);
    }
    for (const flag of Object.keys(LEFT_FLAGS)) expect(init, `${flag} is not a flag of cdk init`).toHaveProperty([flag]);
  });

  it("deploying.md's section lists the flags left, at their values, for the same reasons", () => {
    const docs = leftInDocs();
    expect(docs.rows).toEqual(Object.fromEntries(Object.entries(LEFT_FLAGS).map(([flag, l]) => [flag, [l.value, l.reason]])));
    expect(docs.none).toBe(Object.keys(LEFT_FLAGS).length === 0);
  });
});
