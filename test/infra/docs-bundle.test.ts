import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../infra/constructs/service-function';
import { externalLoads } from '../../infra/reference-docs';
import { ROUTES } from '../../shared/routes';

const out = mkdtempSync(join(tmpdir(), 'docs-bundle-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the docs functions, bundled as the CDK bundles them', () => {
  it('carry the reference page and the rendered guides, the tags linking only to guides in the bundle', () => {
    const app = new App({ outdir: out, context: { 'aws:cdk:enable-asset-metadata': true } });
    const stack = new Stack(app, 'DocsBundle');
    const reference = new ServiceFunction(stack, 'Reference', { entry: ROUTES.getDocs.handler, referencePage: true });
    const guides = new ServiceFunction(stack, 'Guide', { entry: ROUTES.getGuide.handler, guidePages: ROUTES.getGuide.guidePages });
    const template = Template.fromStack(stack);
    const assembly = app.synth();
    const bundleOf = (fn: ServiceFunction) => {
      const props = template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as never)].Metadata;
      return join(assembly.directory, props['aws:asset:path'] as string);
    };
    const env = (fn: ServiceFunction) => template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties.Environment.Variables;
    expect(env(guides).GUIDES_DIR).toBe('/var/task/guides');
    expect(env(reference).REFERENCE_HTML).toBe('/var/task/reference.html');

    const guideDir = join(bundleOf(guides), 'guides');
    const pages = readdirSync(guideDir);
    expect(pages).toContain('index.html');
    expect(pages).toContain('authentication.html');
    for (const p of pages) expect(externalLoads(readFileSync(join(guideDir, p), 'utf8')), p).toEqual([]);

    const html = readFileSync(join(bundleOf(reference), 'reference.html'), 'utf8');
    const linked = [...new Set([...html.matchAll(/docs\/guides\/([a-z0-9-]+)/g)].map((m) => m[1]!))];
    expect(linked).toContain('authentication');
    for (const name of linked) expect(existsSync(join(guideDir, `${name}.html`)), name).toBe(true);
  }, 240_000);
});
