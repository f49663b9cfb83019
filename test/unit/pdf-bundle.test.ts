import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_MAIN_FIELDS, IMPORT_META_URL_BANNER, IMPORT_META_URL_DEFINE } from '../../infra/constructs/esbuild-cjs';
import { FONT_FILES, FONT_PACKAGE_DIR } from '../../shared/settlements/fonts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('invoices in a Lambda bundle', () => {
  it('render from a CommonJS bundle (as the CDK builds it) with the fonts copied beside it, where no node_modules exist', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdf-bundle-'));
    try {
      await build({
        entryPoints: [join(ROOT, 'test/fixtures/render-invoice.ts')],
        bundle: true,
        platform: 'node',
        target: 'node22',
        format: 'cjs',
        minify: true,
        mainFields: BUNDLE_MAIN_FIELDS,
        define: IMPORT_META_URL_DEFINE,
        banner: { js: IMPORT_META_URL_BANNER },
        outfile: join(dir, 'index.js'),
        logLevel: 'silent',
      });
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
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
