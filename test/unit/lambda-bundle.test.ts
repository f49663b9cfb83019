import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { LAMBDA_ESBUILD_OPTIONS } from '../../infra/constructs/esbuild-cjs';
import shimDecompress from '../../infra/lambda-shims/brotli-decompress';
import { FONT_FILES, FONT_PACKAGE_DIR } from '../../shared/settlements/fonts';

const ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Bundles a fixture as the CDK bundles a function, into a directory with no node_modules; returns the directory and the bundled inputs. */
async function bundle(fixture: string): Promise<{ dir: string; inputs: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'lambda-bundle-'));
  dirs.push(dir);
  const r = await build({ ...LAMBDA_ESBUILD_OPTIONS, entryPoints: [join(ROOT, fixture)], outfile: join(dir, 'index.js'), metafile: true, logLevel: 'silent' });
  return { dir, inputs: Object.keys((r.metafile as Metafile).inputs) };
}

const runIn = (dir: string, script: string, env: Record<string, string>) =>
  spawnSync(process.execPath, ['-e', script], { cwd: dir, env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' });

describe('Lambda bundles', () => {
  it('render invoices from a CommonJS bundle (as the CDK builds it) with the fonts copied beside it, where no node_modules exist', async () => {
    const { dir, inputs } = await bundle('test/fixtures/render-invoice.ts');
    // fontkit's pure-JS Brotli decoder is replaced by Node's own (infra/lambda-shims).
    expect(inputs.filter((i) => i.includes('node_modules/brotli/'))).toEqual([]);
    // What the CDK's afterBundling hook copies.
    mkdirSync(join(dir, 'fonts'));
    for (const f of Object.values(FONT_FILES)) copyFileSync(join(ROOT, FONT_PACKAGE_DIR, f), join(dir, 'fonts', f));
    const out = execFileSync(process.execPath, ['-e', "require('./index.js').render().then((r) => process.stdout.write(JSON.stringify(r)))"], {
      cwd: dir,
      env: { PATH: process.env.PATH, PDF_FONT_DIR: join(dir, 'fonts') },
    }).toString();
    const { pdf, csv } = JSON.parse(out) as { pdf: string; csv: string };
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans\b/);
    expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans-Bold\b/);
    // No PDF standard font was used: they cannot print N°, accents or Arabic.
    expect(pdf).not.toMatch(/\/BaseFont \/(Helvetica|Times|Courier)/);
    expect(csv).toContain('PTS-000001');
  }, 60_000);

  it("take the AWS credentials Lambda sets in the environment, without bundling the rest of the SDK's credential chain, and load the X-Ray SDK", async () => {
    const { dir, inputs } = await bundle('test/fixtures/bundle-credentials.ts');
    for (const pkg of [
      'credential-provider-node',
      'credential-provider-ini',
      'credential-provider-sso',
      'nested-clients',
      'semver/index.js',
      'semver/ranges/',
    ]) {
      expect(
        inputs.filter((i) => i.includes(pkg)),
        pkg,
      ).toEqual([]);
    }
    expect(inputs.some((i) => i.includes('node_modules/aws-xray-sdk-core/'))).toBe(true);
    const script =
      "require('./index.js').credentials().then((c) => process.stdout.write(JSON.stringify(c)), (e) => process.stdout.write(JSON.stringify({ error: e.name })))";
    const base = { AWS_REGION: 'eu-west-3' };
    const withCreds = runIn(dir, script, { ...base, AWS_ACCESS_KEY_ID: 'ASIAFROMLAMBDA', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'session' });
    expect(withCreds.stderr).toBe('');
    expect(JSON.parse(withCreds.stdout)).toEqual({ accessKeyId: 'ASIAFROMLAMBDA', sessionToken: 'session', tracer: true });
    // No other source is looked for: without the variables, the SDK's own error.
    expect(JSON.parse(runIn(dir, script, base).stdout)).toEqual({ error: 'CredentialsProviderError' });
  }, 60_000);

  it("decompress Brotli as the brotli package's decoder does", async () => {
    const { default: original } = (await import('brotli/decompress.js' as string)) as { default: (b: Uint8Array, size?: number) => Uint8Array };
    const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => `glyph ${i % 97} ${'x'.repeat(i % 13)}`).join('\n'));
    const compressed = brotliCompressSync(data);
    const ours = shimDecompress(compressed, data.length);
    expect(ours).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(ours).equals(data)).toBe(true);
    expect(Buffer.from(original(compressed, data.length)).equals(Buffer.from(ours))).toBe(true);
  });
});
