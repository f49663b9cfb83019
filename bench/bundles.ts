import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { BUNDLE_MAIN_FIELDS, IMPORT_META_URL_BANNER, IMPORT_META_URL_DEFINE } from '../infra/constructs/esbuild-cjs';

/**
 * Bundles every Lambda entry under functions/ the way the CDK does
 * (esbuild, node22, CJS, minified, the AWS SDK bundled) and reports the size
 * of each bundle with its largest inputs, from esbuild's metafile.
 */
export const ROOT = join(import.meta.dirname, '..');

export function functionEntries(dir = join(ROOT, 'functions')): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? functionEntries(p) : name.endsWith('.ts') ? [relative(ROOT, p)] : [];
    })
    .sort();
}

export interface BundleSize {
  entry: string;
  bytes: number;
  /** The largest packages or source folders in the bundle, by output bytes. */
  top: { input: string; bytes: number }[];
  code: string;
}

/** Groups a metafile input path into its package (node_modules/x) or source folder. */
function group(input: string): string {
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (nm) return nm[1]!;
  return input.split('/').slice(0, 2).join('/');
}

/** The esbuild options the CDK's NodejsFunction uses for every function (infra/constructs/service-function.ts). */
const AS_DEPLOYED: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  write: false,
  metafile: true,
  logLevel: 'silent',
  mainFields: BUNDLE_MAIN_FIELDS,
  define: IMPORT_META_URL_DEFINE,
  banner: { js: IMPORT_META_URL_BANNER },
};

export async function bundleSize(entry: string): Promise<BundleSize> {
  const r = await build({ ...AS_DEPLOYED, entryPoints: [join(ROOT, entry)] });
  const out = Object.values((r.metafile as Metafile).outputs)[0]!;
  const byGroup = new Map<string, number>();
  for (const [input, v] of Object.entries(out.inputs)) byGroup.set(group(input), (byGroup.get(group(input)) ?? 0) + v.bytesInOutput);
  const top = [...byGroup.entries()]
    .map(([input, bytes]) => ({ input, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
  return { entry, bytes: r.outputFiles![0]!.contents.length, top, code: r.outputFiles![0]!.text };
}

/** A handler that only creates the SDK clients every function needs: what a cold start costs before our code. */
const BARE_HANDLER = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => ({ statusCode: 200 });`;

export async function bareHandlerCode(): Promise<string> {
  const r = await build({ ...AS_DEPLOYED, stdin: { contents: BARE_HANDLER, resolveDir: ROOT, loader: 'ts' } });
  return r.outputFiles![0]!.text;
}

/**
 * The init time of a bundle: a fresh Node process loads it as Lambda does
 * (module evaluation, top-level clients), median of `runs`, in ms.
 */
export function initMs(code: string, runs = 5): number {
  const dir = mkdtempSync(join(tmpdir(), 'ptbs-init-'));
  const file = join(dir, 'index.cjs');
  writeFileSync(file, code);
  const env = { ...process.env, AWS_REGION: 'eu-west-3', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', ACCESS_TABLE: 'a', DATA_TABLE: 'd' };
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(
      process.execPath,
      ['-e', `const t=process.hrtime.bigint();require(${JSON.stringify(file)});console.log(Number(process.hrtime.bigint()-t)/1e6)`],
      { env, encoding: 'utf8' },
    );
    times.push(Number(r.stdout.trim()));
  }
  rmSync(dir, { recursive: true, force: true });
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

/** Size of every function's bundle with its largest inputs, and with `withInit` its init time against the bare handler's. */
export async function bundleReport(withInit: boolean, initRuns = 5): Promise<string> {
  const bare = withInit ? initMs(await bareHandlerCode(), initRuns) : undefined;
  const rows = [];
  for (const entry of functionEntries()) rows.push(await bundleSize(entry));
  const width = Math.max(...rows.map((r) => r.entry.length));
  const out: string[] = [];
  const ratios: number[] = [];
  for (const r of rows) {
    const ms = bare === undefined ? undefined : initMs(r.code, initRuns);
    if (ms !== undefined) ratios.push(ms / bare!);
    const init = ms === undefined ? '' : `  init ${ms.toFixed(0).padStart(4)} ms (${(ms / bare!).toFixed(2)}x bare)`;
    out.push(`${r.entry.padEnd(width)}  ${kb(r.bytes).padStart(8)}${init}   ${r.top.map((t) => `${t.input} ${kb(t.bytes)}`).join(', ')}`);
  }
  const sizes = rows.map((r) => r.bytes).sort((a, b) => a - b);
  const mid = <T>(xs: T[]) => xs[Math.floor(xs.length / 2)]!;
  out.push(`\n${rows.length} functions (minified, esbuild metafile): min ${kb(sizes[0]!)}, median ${kb(mid(sizes))}, max ${kb(sizes.at(-1)!)}`);
  out.push(`bare handler (SDK clients only): ${kb((await bareHandlerCode()).length)}`);
  if (bare !== undefined) {
    ratios.sort((a, b) => a - b);
    out.push(
      `init (fresh Node process, median of ${initRuns}): bare ${bare.toFixed(0)} ms; functions / bare: min ${ratios[0]!.toFixed(2)}x, median ${mid(ratios).toFixed(2)}x, max ${ratios.at(-1)!.toFixed(2)}x`,
    );
  }
  return out.join('\n');
}

if (process.argv[1] === import.meta.filename) console.log(await bundleReport(process.argv.includes('--init')));
