import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Authorizer, DenyRecord, Usage } from './enforce';
import type { IamModel, Statement } from './model';

/** What the Lambda runtime itself uses (logs, traces): no SDK call of the code does, so usage never shows them. */
const RUNTIME_ACTIONS = /^(logs|xray):/;

/** The denies, the usage (every process that enforced: the stack, the admin CLI) and the model of a run's state directory. */
export function readIamRun(stateDir: string): { model?: IamModel; usage: Usage; denies: DenyRecord[]; stats: Authorizer['stats'] } {
  const dir = join(stateDir, 'iam');
  const stats = { authorizations: 0, evaluations: 0, evaluationMs: 0 };
  if (!existsSync(dir)) return { usage: {}, denies: [], stats };
  for (const f of readdirSync(dir).filter((n) => /^stats-\d+\.json$/.test(n))) {
    const s = JSON.parse(readFileSync(join(dir, f), 'utf8')) as typeof stats;
    stats.authorizations += s.authorizations;
    stats.evaluations += s.evaluations;
    stats.evaluationMs += s.evaluationMs;
  }
  const model = existsSync(join(dir, 'model.json')) ? (JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as IamModel) : undefined;
  const usage: Usage = {};
  for (const f of readdirSync(dir).filter((n) => /^usage-\d+\.json$/.test(n))) {
    for (const [principal, used] of Object.entries(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Usage)) {
      usage[principal] ??= {};
      for (const [call, u] of Object.entries(used)) {
        const was = usage[principal][call];
        usage[principal][call] = { count: (was?.count ?? 0) + u.count, allowedBy: [...new Set([...(was?.allowedBy ?? []), ...u.allowedBy])] };
      }
    }
  }
  const deniesFile = join(dir, 'denies.jsonl');
  const denies = existsSync(deniesFile)
    ? readFileSync(deniesFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as DenyRecord)
    : [];
  return { model, usage, denies, stats };
}

const short = (arn: string) =>
  arn
    .replace(/^arn:aws:dynamodb:[^:]*:[^:]*:table\//, 'table ')
    .replace(/^arn:aws:sqs:[^:]*:[^:]*:/, 'queue ')
    .replace(/^arn:aws:s3:::/, 'bucket ')
    .replace(/^arn:aws:([a-z-]+):[^:]*:[^:]*:/, '$1 ');

export interface Unused {
  principal: string;
  name: string;
  granted: number;
  used: number;
  unused: string[];
}

/**
 * Per function (and for the operators' policy), the actions its policies grant that the run never used: each Allow statement's actions that no
 * allowed call was allowed by (the usage records which statements allowed each call). The runtime's own actions
 * (CloudWatch Logs, X-Ray) are left out: the Lambda runtime uses them, not the code.
 */
export function unusedGrants(model: IamModel, usage: Usage): Unused[] {
  return Object.values(model.roles)
    .filter((r) => r.principal.startsWith('function:') || r.principal === 'operator')
    .map((role) => {
      const used = Object.entries(usage[role.principal] ?? {});
      const unused: string[] = [];
      let granted = 0;
      for (const p of role.policies) {
        [p.document.Statement].flat().forEach((s: Statement, j) => {
          if (s.Effect !== 'Allow') return;
          const id = `${p.name}#${j}`;
          for (const action of [s.Action ?? []].flat()) {
            if (RUNTIME_ACTIONS.test(action)) continue;
            granted++;
            const hit = used.some(([call, u]) => call.split(' ')[0] === action && u.allowedBy.includes(id));
            if (!hit) unused.push(`${action} on ${[s.Resource ?? '*'].flat().map(short).join(', ')}`);
          }
        });
      }
      return { principal: role.principal, name: role.principal.replace(/^function:functions\//, ''), granted, used: granted - unused.length, unused };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The least-privilege report of a run, in Markdown: one row per function. */
export function leastPrivilegeReport(model: IamModel, usage: Usage, denies: DenyRecord[], stats?: Authorizer['stats']): string {
  const rows = unusedGrants(model, usage);
  const total = rows.reduce((n, r) => n + r.unused.length, 0);
  return [
    `${rows.length} functions; ${rows.reduce((n, r) => n + r.granted, 0)} granted actions (per statement, without logs and X-Ray), ${total} never used in this run; ${denies.length} denied calls.`,
    ...(stats
      ? [
          '',
          `${stats.authorizations} authorizations, ${stats.evaluations} evaluated (the others from the decision cache), ${(stats.evaluationMs / 1000).toFixed(1)} s spent evaluating.`,
        ]
      : []),
    '',
    '| function | granted | used | never used |',
    '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.name}\` | ${r.granted} | ${r.used} | ${r.unused.map((u) => `\`${u}\``).join('<br>') || '-'} |`),
    '',
  ].join('\n');
}
