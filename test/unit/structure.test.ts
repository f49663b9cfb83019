import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { functionEntries } from '../../bench/bundles';
import { ROUTE_LIST } from '../../shared/routes';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const p = join(ROOT, dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(p).isDirectory()) return sources(relative(ROOT, p));
    return name.endsWith('.ts') ? [relative(ROOT, p)] : [];
  });
}

describe('layout', () => {
  it('spells DynamoDB key prefixes only in the keys modules, tests included', () => {
    // A quoted or template literal that starts with an upper-case key prefix: 'QUOTE#', `DLV#${id}`.
    const keyLiteral = /['"`][A-Z][A-Z_]*#/;
    const offenders = ['shared', 'functions', 'infra', 'scripts', 'bench', 'test']
      .flatMap(sources)
      .filter((f) => !f.endsWith('/keys.ts') && f !== 'test/unit/structure.test.ts')
      .flatMap((f) =>
        readFileSync(join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (keyLiteral.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });

  it('imports zod as a namespace, so esbuild can leave its locales out of every bundle', () => {
    const named = /^import \{[^}]*\bz\b[^}]*\} from 'zod';/m;
    const offenders = ['shared', 'functions', 'infra', 'scripts', 'bench', 'sdk/src']
      .flatMap(sources)
      .filter((f) => named.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('has a handler file for every route of the table', () => {
    const entries = new Set(functionEntries());
    for (const r of ROUTE_LIST) expect(entries.has(r.handler), `${r.id}: ${r.handler}`).toBe(true);
  });

  it("bundles into each route's function only its own feature's route table, and into no function the local stack's IAM layer", async () => {
    const tables = (inputs: string[]) => inputs.filter((i) => /^shared\/[a-z-]+\/routes\.ts$/.test(i));
    // @cloud-copilot/iam-simulate is AGPL-3.0-or-later: a development dependency of the local stack and the tests only.
    const localOnly = (inputs: string[]) => inputs.filter((i) => i.includes('@cloud-copilot/') || i.startsWith('infra/local/'));
    // One build of every entry (esbuild parses each shared module once, on every core); what each entry's own build
    // would read is what its entry reaches in the import graph of the metafile's inputs.
    const entries = functionEntries();
    const { metafile } = await build({
      entryPoints: entries.map((e) => join(ROOT, e)),
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      outdir: join(ROOT, '.local', 'structure-test'),
      metafile: true,
      logLevel: 'silent',
    });
    const reached = (entry: string) => {
      const seen = new Set<string>([entry]);
      for (const path of seen) for (const i of metafile.inputs[path]?.imports ?? []) if (metafile.inputs[i.path]) seen.add(i.path);
      return [...seen];
    };
    for (const entry of entries) {
      expect(metafile.inputs[entry], entry).toBeDefined();
      const inputs = reached(entry);
      expect(localOnly(inputs), entry).toEqual([]);
      const r = ROUTE_LIST.find((x) => x.handler === entry);
      // The OpenAPI document is built from every route, so its handler alone needs them all.
      if (!r || r.id === 'getOpenApi') continue;
      expect(tables(inputs), r.handler).toHaveLength(1);
    }
  }, 300_000);
});
