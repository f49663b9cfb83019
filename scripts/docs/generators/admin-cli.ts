import type * as z from 'zod';
import { COMMANDS, type Command } from '../../admin/commands';

/**
 * docs/operations/admin-cli.md, from the CLI's own command table (usage,
 * description, --json output, each flag's schema and description), so the
 * reference cannot drift from what `npm run -s admin` accepts.
 */

interface FlagDoc {
  name: string;
  value: string;
  required: boolean;
  fallback?: string;
  description: string;
}

type Def = { type: string; format?: string; innerType?: z.ZodType; defaultValue?: unknown; entries?: Record<string, string> };
const defOf = (s: z.ZodType) => (s as unknown as { def: Def }).def;

const FORMAT_NAMES: Record<string, string> = { uuid: 'UUID', date: 'YYYY-MM-DD', datetime: 'ISO 8601 date-time', email: 'EMAIL' };

/** Walks optional/default wrappers: the outermost description wins (a command may say more than the shared flag). */
export function flagDoc(name: string, schema: z.ZodType, positional: boolean, usage = ''): FlagDoc {
  let s = schema;
  let description = schema.description;
  let required = true;
  let fallback: string | undefined;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'optional') required = false;
    else if (d.type === 'default') {
      required = false;
      fallback = String(typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue);
    } else break;
    s = d.innerType!;
    description ??= s.description;
  }
  const d = defOf(s);
  // An enum's values, else the placeholder the usage line shows (--partner ID, --time HH:MM), else one from the schema.
  const shown = new RegExp(`--${name} ([^\\s\\]()]+)`).exec(usage)?.[1];
  const value =
    d.type === 'boolean'
      ? ''
      : d.type === 'enum'
        ? Object.values(d.entries ?? {}).join('|')
        : (shown ?? (positional ? name.toUpperCase() : d.type === 'number' ? 'N' : (FORMAT_NAMES[d.format ?? ''] ?? 'TEXT')));
  if (!description) throw new Error(`admin CLI: flag --${name} has no description (add .describe() in scripts/admin/commands.ts)`);
  return { name, value, required, fallback, description };
}

function flagRow(f: FlagDoc, positional: boolean): string {
  const flag = positional ? `\`${f.name.toUpperCase()}\` (positional)` : `\`--${f.name}\``;
  const value = f.value.replaceAll('|', '\\|');
  const need = f.required ? 'required' : f.fallback !== undefined ? `default \`${f.fallback}\`` : 'optional';
  return `| ${flag} | ${value ? `\`${value}\`` : '(switch)'} | ${need} | ${f.description.replaceAll('|', '\\|')} |`;
}

function commandSection(name: string, c: Command): string {
  const shape = c.flags.shape as Record<string, z.ZodType>;
  const positionals = new Set(c.positionals ?? []);
  const flags = Object.entries(shape).map(([k, s]) => flagRow(flagDoc(k, s, positionals.has(k), c.usage), positionals.has(k)));
  return [
    `### \`${name}\``,
    '',
    '```text',
    `npm run -s admin -- ${c.usage}`,
    '```',
    '',
    c.description,
    '',
    ...(flags.length ? ['| flag | value | | what |', '|---|---|---|---|', ...flags, ''] : []),
    `\`--json\`: ${c.output}${c.offline ? ' Reads local files only: needs no running stack.' : ''}`,
    '',
  ].join('\n');
}

/** Groups in the order an operator meets them; a command of a new prefix gets its own group. */
const GROUPS: [prefix: string, title: string][] = [
  ['partner', 'Partners'],
  ['member', 'Members'],
  ['key', 'API keys'],
  ['payment-key', 'Payment keys'],
  ['catalog', 'Catalog'],
  ['booking', 'Bookings'],
  ['settlement', 'Settlements'],
  ['review', 'Reviews'],
  ['files', 'Files'],
  ['webhooks', 'Webhooks'],
  ['job', 'Jobs'],
  ['data', 'Data'],
  ['metrics', 'Metrics'],
  ['mail', 'Local stack'],
  ['demo', 'Local stack'],
];

/** partner:create and partners:x are Partners; member:add and members:link-console are Members. */
const singular = (s: string) => s.replace(/s$/, '');
const groupOf = (name: string) => {
  const prefix = singular(name.split(':')[0]!);
  return GROUPS.find(([p]) => singular(p) === prefix)?.[1] ?? prefix;
};
/** GitHub's anchor of a heading "### `name`". */
const anchor = (name: string) => name.replace(/[^a-z0-9-]/g, '');

export function render(): string {
  const groups = new Map<string, string[]>();
  for (const name of Object.keys(COMMANDS)) groups.set(groupOf(name), [...(groups.get(groupOf(name)) ?? []), name]);
  const order = [...new Set([...GROUPS.map(([, t]) => t), ...groups.keys()])].filter((t) => groups.has(t));
  const index = order.map(
    (t) =>
      `- ${t}: ${groups
        .get(t)!
        .map((n) => `[\`${n}\`](#${anchor(n)})`)
        .join(', ')}`,
  );
  return `${[
    '<!-- Generated from scripts/admin/commands.ts by scripts/docs/generators/admin-cli.ts: edit the command table, not this file. -->',
    '',
    '# Admin CLI',
    '',
    "The operators' tool. Every command has the same shape:",
    '',
    '```text',
    'npm run -s admin -- <command> [flags] [--json]',
    '```',
    '',
    'Without `--json` a command prints a short summary for people; with `--json`, stdout carries exactly one JSON',
    'document (progress, when there is any, goes to stderr). Errors go to stderr with a non-zero exit: 2 for a usage',
    'error (unknown command or flag, invalid value), 1 for anything else. `npm run -s admin -- help` lists the',
    'commands (`help --json` as one document).',
    '',
    '## Target',
    '',
    'By default the CLI acts on the local stack started from the same checkout with the same `LOCAL_STATE_DIR`',
    '(`infra/local/find-stack.ts` reads its `runtime-<PORT>.json`). With `PORT` set it picks that stack; without',
    'it, the one stack running there; when several run, it lists them and asks which; when none runs, it says so.',
    'Against the local stack, every command is recorded as an invocation of a function named `admin <command>`',
    '(see [Observability](observability.md)).',
    '',
    'For a deployed stack, set `ADMIN_TARGET=aws` (and `STACK_NAME` if it is not `PartnerTravelService`) with the',
    "usual AWS credentials and region: the CLI reads the table, queue, bucket and user pool names from the stack's outputs",
    'and talks to the AWS services directly. Commands that only make sense locally say so and stop.',
    '',
    '<!-- runnable -->',
    '```sh',
    'npm run -s admin -- help',
    'npm run -s admin -- jobs:status --json',
    '```',
    '',
    '## Commands',
    '',
    ...index,
    '',
    ...order.flatMap((t) => [`## ${t}`, '', ...groups.get(t)!.map((n) => commandSection(n, COMMANDS[n]!))]),
  ]
    .join('\n')
    .trimEnd()}\n`;
}

export default { file: 'docs/operations/admin-cli.md', render };
