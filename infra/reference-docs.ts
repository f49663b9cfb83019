import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApi } from '../shared/openapi';
import { externalLoads } from './external-loads';
import { GUIDE_SOURCE, readGuideSources, renderGuides, withGuideLinks } from './guides';

const ROOT = resolve(import.meta.dirname, '..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const run = promisify(execFile);
const REDOC_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g;
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="12"><text x="0" y="10" font-size="10" font-family="sans-serif">Redoc</text></svg>')}`;

export { externalLoads };

/**
 * The API reference page (GET /v1/docs): the OpenAPI document of the route
 * table rendered by Redocly's build-docs with the Redoc scripts inlined, so
 * the page loads nothing from any CDN. Built at build time: by the local
 * stack when it starts, and by the CDK into the docs function's bundle. Each tag links to the
 * partner guides of `guidesDir` that exist at that moment (infra/guides.ts, built beside it).
 */
export async function buildReferenceHtml(outFile: string, guidesDir = GUIDE_SOURCE): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ptbs-docs-'));
  try {
    const { guides } = renderGuides(readGuideSources(guidesDir), guidesDir);
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(withGuideLinks(buildOpenApi(), guides)));
    await run(
      process.execPath,
      [REDOCLY, 'build-docs', 'openapi.json', '--inlineBundle', '--output', 'reference.html', '--title', 'Partner travel booking service API'],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    // Redoc's "API docs by" badge is an image on Redocly's CDN: the page carries an inline one instead.
    const html = readFileSync(join(dir, 'reference.html'), 'utf8').replaceAll(REDOC_LOGO, INLINE_LOGO);
    // What else names a CDN (icon sets) is used only by features this document does not use; the browser test fails on any request.
    if (html.includes('cdn.redoc.ly')) throw new Error('the reference page still names a Redocly CDN image');
    const external = externalLoads(html);
    if (external.length) throw new Error(`the reference page would load from other origins: ${external.join(', ')}`);
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, html);
    return outFile;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node --import tsx infra/reference-docs.ts OUT.html` (the CDK's bundling hook).
if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: reference-docs.ts OUT.html');
  await buildReferenceHtml(resolve(out));
}
