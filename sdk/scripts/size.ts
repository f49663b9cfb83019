import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** `npm run sdk:size`: the SDK bundled and minified for Node 20 (jose included, tree-shaken), raw and gzipped. */
export async function sdkBundleSize(): Promise<{ bytes: number; gzip: number }> {
  const out = await build({
    entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.contents;
  return { bytes: code.byteLength, gzip: gzipSync(code).byteLength };
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const { bytes, gzip } = await sdkBundleSize();
  console.log(`SDK bundle (minified, ESM, node20, jose included): ${(bytes / 1024).toFixed(1)} KiB, ${(gzip / 1024).toFixed(1)} KiB gzipped`);
}
