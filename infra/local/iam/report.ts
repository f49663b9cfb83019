import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Authorizer, type DenyRecord, likePattern, type Usage, type UsedCall } from './enforce';
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
      for (const [call, u] of Object.entries(used)) usage[principal][call] = mergeCalls(usage[principal][call], u);
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

const union = (a: string[] = [], b: string[] = []) => [...new Set([...a, ...b])].sort();

/** The usage of one call by two processes, as one. */
function mergeCalls(a: UsedCall | undefined, b: UsedCall): UsedCall {
  if (!a) return b;
  const partitions = union(a.partitions, b.partitions);
  const ids = union(Object.keys(a.patterns ?? {}), Object.keys(b.patterns ?? {}));
  return {
    count: a.count + b.count,
    allowedBy: union(a.allowedBy, b.allowedBy),
    ...(partitions.length ? { partitions } : {}),
    ...(ids.length ? { patterns: Object.fromEntries(ids.map((id) => [id, union(a.patterns?.[id], b.patterns?.[id])])) } : {}),
  };
}

/** The dynamodb:LeadingKeys patterns a statement's condition bounds its actions by. */
const leadingKeysOf = (s: Statement) =>
  Object.values(s.Condition ?? {}).flatMap((c) =>
    Object.entries(c).flatMap(([k, v]) => (k.toLowerCase() === 'dynamodb:leadingkeys' ? [v].flat().map(String) : [])),
  );

const short = (arn: string) =>
  arn
    .replace(/^arn:aws:dynamodb:[^:]*:[^:]*:table\//, 'table ')
    .replace(/^arn:aws:sqs:[^:]*:[^:]*:/, 'queue ')
    .replace(/^arn:aws:s3:::/, 'bucket ')
    .replace(/^arn:aws:cognito-idp:[^:]*:[^:]*:userpool\/.*$/, 'user pool')
    .replace(/^arn:aws:([a-z-]+):[^:]*:[^:]*:/, '$1 ');

/** A function's expected use, for the run's verdict: what the report calls it, and the unused grants accepted (by line, each with why). */
export interface Expectation {
  label: string;
  untested: Record<string, string>;
}

export interface Unused {
  principal: string;
  name: string;
  /** Actions granted, per statement. */
  granted: number;
  used: number;
  /**
   * The report's lines of what no call used: `<action> on <resources>`, and for a statement bounded by
   * dynamodb:LeadingKeys, `<action> on <resources> for <pattern>` per pattern no call of that action fell under.
   */
  unused: string[];
  /** Partition grants (action x dynamodb:LeadingKeys pattern, per statement), and how many no call reached. */
  partitions: number;
  partitionsUnused: number;
  /** Whether the run called anything as this function. */
  called: boolean;
}

/**
 * Per function (and for the operators' policy), the actions its policies grant that the run never used: each Allow
 * statement's actions that no allowed call was allowed by (the usage records which statements allowed each call),
 * and, where a statement bounds them by dynamodb:LeadingKeys, each pattern no call of that action reached. The
 * runtime's own actions (CloudWatch Logs, X-Ray) are left out: the Lambda runtime uses them, not the code.
 */
export function unusedGrants(model: IamModel, usage: Usage): Unused[] {
  return Object.values(model.roles)
    .filter((r) => r.principal.startsWith('function:') || r.principal === 'operator')
    .map((role) => {
      const used = Object.entries(usage[role.principal] ?? {});
      const unused: string[] = [];
      let granted = 0;
      let usedActions = 0;
      let partitions = 0;
      let partitionsUnused = 0;
      for (const p of role.policies) {
        [p.document.Statement].flat().forEach((s: Statement, j) => {
          if (s.Effect !== 'Allow') return;
          const id = `${p.name}#${j}`;
          const resources = [s.Resource ?? '*'].flat();
          const patterns = leadingKeysOf(s);
          for (const action of [s.Action ?? []].flat()) {
            if (RUNTIME_ACTIONS.test(action)) continue;
            granted++;
            const calls = used.filter(([call, u]) => call.split(' ')[0] === action && u.allowedBy.includes(id));
            if (calls.length) usedActions++;
            // A line per resource (a statement CDK merged from several stays several lines), and per partition.
            for (const resource of resources) {
              const re = likePattern(resource);
              const on = calls.filter(([call]) => re.test(call.slice(call.indexOf(' ') + 1))).map(([, u]) => u);
              if (!patterns.length) {
                if (!on.length) unused.push(`${action} on ${short(resource)}`);
                continue;
              }
              const reached = new Set(on.flatMap((u) => u.patterns?.[id] ?? []));
              for (const pattern of patterns) {
                partitions++;
                if (reached.has(pattern)) continue;
                partitionsUnused++;
                unused.push(`${action} on ${short(resource)} for ${pattern}`);
              }
            }
          }
        });
      }
      return {
        principal: role.principal,
        name: role.principal.replace(/^function:functions\//, ''),
        granted,
        used: usedActions,
        unused,
        partitions,
        partitionsUnused,
        called: used.length > 0,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The unused grants of the functions the run called that their expectation does not accept: what fails the run. */
export function unexpectedUnused(rows: Unused[], expected: Record<string, Expectation>): { label: string; lines: string[] }[] {
  return rows.flatMap((r) => {
    const e = expected[r.principal];
    if (!e || !r.called) return [];
    const lines = r.unused.filter((l) => !(l in e.untested));
    return lines.length ? [{ label: e.label, lines }] : [];
  });
}

/**
 * The least-privilege report of a run, in Markdown: one row per function (a route by its id), with what it was
 * granted and never used; a line its expectation accepts is marked "(untested)".
 */
export function leastPrivilegeReport(
  model: IamModel,
  usage: Usage,
  denies: DenyRecord[],
  stats?: Authorizer['stats'],
  expected: Record<string, Expectation> = {},
): string {
  const rows = unusedGrants(model, usage);
  const sum = (f: (r: Unused) => number) => rows.reduce((n, r) => n + f(r), 0);
  const unexpected = unexpectedUnused(rows, expected).reduce((n, u) => n + u.lines.length, 0);
  const label = (r: Unused) => (expected[r.principal] ? `${expected[r.principal]!.label} (${r.name})` : r.name);
  const line = (r: Unused, l: string) => `\`${l}\`${expected[r.principal]?.untested[l] !== undefined ? ' (untested)' : ''}`;
  return [
    `${rows.length} functions; ${sum((r) => r.granted)} granted actions (per statement, without logs and X-Ray), ${sum((r) => r.granted - r.used)} never used in this run; ${sum((r) => r.partitions)} partition grants (action and dynamodb:LeadingKeys pattern), ${sum((r) => r.partitionsUnused)} never reached; ${denies.length} denied calls; ${unexpected} unused grants of routes the run called and no route accepts as untested.`,
    ...(stats
      ? [
          '',
          `${stats.authorizations} authorizations, ${stats.evaluations} evaluated (the others from the decision cache), ${(stats.evaluationMs / 1000).toFixed(1)} s spent evaluating.`,
        ]
      : []),
    '',
    '| function | granted | used | never used |',
    '|---|---|---|---|',
    ...rows.map(
      (r) => `| \`${label(r)}\`${r.called ? '' : ' (not called)'} | ${r.granted} | ${r.used} | ${r.unused.map((l) => line(r, l)).join('<br>') || '-'} |`,
    ),
    '',
  ].join('\n');
}
