import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { IMPORT_META_URL_BANNER, IMPORT_META_URL_DEFINE } from '../infra/constructs/esbuild-cjs';

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

export async function bundleSize(entry: string): Promise<BundleSize> {
  const r = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify: true,
    define: IMPORT_META_URL_DEFINE,
    banner: { js: IMPORT_META_URL_BANNER },
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const out = Object.values((r.metafile as Metafile).outputs)[0]!;
  const byGroup = new Map<string, number>();
  for (const [input, v] of Object.entries(out.inputs)) byGroup.set(group(input), (byGroup.get(group(input)) ?? 0) + v.bytesInOutput);
  const top = [...byGroup.entries()]
    .map(([input, bytes]) => ({ input, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
  return { entry, bytes: r.outputFiles[0]!.contents.length, top, code: r.outputFiles[0]!.text };
}

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

if (process.argv[1] === import.meta.filename) {
  const rows = [];
  for (const entry of functionEntries()) rows.push(await bundleSize(entry));
  const width = Math.max(...rows.map((r) => r.entry.length));
  for (const r of rows) console.log(`${r.entry.padEnd(width)}  ${kb(r.bytes).padStart(8)}   ${r.top.map((t) => `${t.input} ${kb(t.bytes)}`).join(', ')}`);
  const sizes = rows.map((r) => r.bytes).sort((a, b) => a - b);
  console.log(`\n${rows.length} functions: min ${kb(sizes[0]!)}, median ${kb(sizes[Math.floor(sizes.length / 2)]!)}, max ${kb(sizes.at(-1)!)}`);
}
