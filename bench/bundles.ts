import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { LAMBDA_ESBUILD_OPTIONS } from '../infra/constructs/esbuild-cjs';

/**
 * Bundles every Lambda entry under functions/ the way the CDK does
 * (esbuild, node22, CJS, minified, the AWS SDK bundled, LAMBDA_BUNDLE_ALIASES) and reports the size
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
const AS_DEPLOYED: BuildOptions = { ...LAMBDA_ESBUILD_OPTIONS, write: false, metafile: true, logLevel: 'silent' };

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

/**
 * The bare handler plus what the service requires of every function before a
 * line of its own: Powertools tracer (X-Ray, the SDK client captured), logger
 * and metrics (the operations issue), middy, and zod with one schema. No
 * function can start faster than this.
 */
const FLOOR_HANDLER = `import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import * as z from 'zod';
const tracer = new Tracer({ captureHTTPsRequests: false });
export const ddb = DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({})));
export const logger = new Logger();
export const metrics = new Metrics();
const Body = z.object({ id: z.string() });
export const handler = middy(async (e: unknown) => ({ statusCode: 200, body: Body.parse(e).id }));`;

async function handlerCode(contents: string): Promise<string> {
  const r = await build({ ...AS_DEPLOYED, stdin: { contents, resolveDir: ROOT, loader: 'ts' } });
  return r.outputFiles![0]!.text;
}

export const bareHandlerCode = () => handlerCode(BARE_HANDLER);
export const floorHandlerCode = () => handlerCode(FLOOR_HANDLER);

/**
 * The init time of a bundle: a fresh Node process loads it as Lambda does
 * (module evaluation, top-level clients), median of `runs`, in ms.
 */
export function initSamples(code: string, runs = 5): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'ptbs-init-'));
  const file = join(dir, 'index.cjs');
  writeFileSync(file, code);
  // What Lambda and the CDK stack set (ServiceFunction), so that both the bare handler and the functions load as deployed.
  const env = {
    PATH: process.env.PATH,
    AWS_REGION: 'eu-west-3',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    AWS_SESSION_TOKEN: 'x',
    ACCESS_TABLE: 'a',
    DATA_TABLE: 'd',
    POWERTOOLS_SERVICE_NAME: 'bench',
    POWERTOOLS_METRICS_NAMESPACE: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // The packages left out of the bundle (sharp) sit in node_modules beside it in Lambda; here, the project's.
    NODE_PATH: join(ROOT, 'node_modules'),
  };
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(
      process.execPath,
      ['-e', `const t=process.hrtime.bigint();require(${JSON.stringify(file)});console.log(Number(process.hrtime.bigint()-t)/1e6)`],
      { env, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`the bundle failed to load: ${r.stderr.trim().split('\n').slice(0, 5).join(' | ')}`);
    times.push(Number(r.stdout.trim()));
  }
  rmSync(dir, { recursive: true, force: true });
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median init time of a bundle over `runs` fresh processes, in ms. */
export const initMs = (code: string, runs = 5): number => median(initSamples(code, runs));

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

/**
 * Size of every function's bundle with its largest inputs, and with `withInit`
 * its init time against the bare handler's and the platform floor's.
 */
export async function bundleReport(withInit: boolean, initRuns = 5): Promise<string> {
  const [bareCode, floorCode] = [await bareHandlerCode(), await floorHandlerCode()];
  // The references are measured before and after the functions, so that a noisy minute does not skew every ratio.
  const bareTimes = withInit ? initSamples(bareCode, initRuns) : [];
  const floorTimes = withInit ? initSamples(floorCode, initRuns) : [];
  const rows = [];
  for (const entry of functionEntries()) rows.push(await bundleSize(entry));
  const width = Math.max(...rows.map((r) => r.entry.length));
  const rowTimes = rows.map((r) => (withInit ? initMs(r.code, initRuns) : undefined));
  const bare = withInit ? median([...bareTimes, ...initSamples(bareCode, initRuns)]) : undefined;
  const floor = withInit ? median([...floorTimes, ...initSamples(floorCode, initRuns)]) : undefined;
  const out = rows.map((r, i) => {
    const ms = rowTimes[i];
    const init = ms === undefined ? '' : `  init ${ms.toFixed(0).padStart(4)} ms (${(ms / bare!).toFixed(2)}x bare, ${(ms / floor!).toFixed(2)}x floor)`;
    return `${r.entry.padEnd(width)}  ${kb(r.bytes).padStart(8)}${init}   ${r.top.map((t) => `${t.input} ${kb(t.bytes)}`).join(', ')}`;
  });
  const times = rowTimes.filter((t) => t !== undefined);
  const sizes = rows.map((r) => r.bytes).sort((a, b) => a - b);
  const mid = <T>(xs: T[]) => xs[Math.floor(xs.length / 2)]!;
  out.push(`\n${rows.length} functions (minified, esbuild metafile): min ${kb(sizes[0]!)}, median ${kb(mid(sizes))}, max ${kb(sizes.at(-1)!)}`);
  out.push(`bare handler (SDK clients only): ${kb(bareCode.length)}`);
  out.push(`platform floor (bare + Powertools tracer, logger, metrics, middy, zod; no code of ours): ${kb(floorCode.length)}`);
  if (bare !== undefined && floor !== undefined) {
    times.sort((a, b) => a - b);
    const span = (base: number) =>
      `min ${(times[0]! / base).toFixed(2)}x, median ${(mid(times) / base).toFixed(2)}x, max ${(times.at(-1)! / base).toFixed(2)}x`;
    out.push(`init (fresh Node process, median of ${initRuns}): bare ${bare.toFixed(0)} ms, floor ${floor.toFixed(0)} ms (${(floor / bare).toFixed(2)}x bare)`);
    out.push(`functions: min ${times[0]!.toFixed(0)} ms, median ${mid(times).toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms`);
    out.push(`functions / bare: ${span(bare)}`);
    out.push(`functions / floor: ${span(floor)}`);
  }
  return out.join('\n');
}

if (process.argv[1] === import.meta.filename) {
  const runs = process.argv.indexOf('--runs');
  console.log(await bundleReport(process.argv.includes('--init'), runs > 0 ? Number(process.argv[runs + 1]) : 5));
}
