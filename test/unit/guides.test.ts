import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGuides, INDEX_PAGE, readGuideSources, renderGuides, TAG_GUIDES, withGuideLinks } from '../../infra/guides';
import { externalLoads } from '../../infra/reference-docs';
import { buildOpenApi } from '../../shared/openapi';

// Throwaway guides: the real ones (docs/guides) are written by others and change.
const GUIDES: Record<string, string> = {
  'README.md': '<!-- Generated: do not edit. -->\n# Partner guides\n\nStart with [getting started](./getting-started.md), then [webhooks](webhooks.md).\n',
  'getting-started.md': [
    '# Getting started',
    '',
    '## Your first key',
    '',
    'Verify deliveries as in [Verifying a delivery](./webhooks.md#verifying-a-delivery), see [the index](./README.md)',
    'and [going live](./going-live.md) (not written), the [runbook](../operations/runbook.md) and the',
    '[recipe](../../recipes/node/verify.ts), [on GitHub](https://github.com/example/repo), [up here](#your-first-key).',
    '',
    '![diagram](./flow.png) ![remote](https://cdn.example.com/x.png)',
    '',
  ].join('\n'),
  'webhooks.md': [
    '# Webhooks',
    '',
    '## Verifying a delivery',
    '',
    '<script>alert("guide")</script>',
    '',
    'Inline <img src=x onerror="alert(1)"> and [click](javascript:alert(1)) and <a href="https://evil.example">raw</a>.',
    '',
    '## `X-Signature` & replays (v2)',
    '',
    '## Verifying a delivery',
    '',
    '```ts',
    'const ok = a < b && c > d;',
    '```',
    '',
    'Back to [getting started](getting-started.md#your-first-key), [missing anchor](getting-started.md#nope).',
    '',
  ].join('\n'),
  'index.md': '# Would take the index page\n',
  'Not_A_Name.md': '# Not a route name\n',
};
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

let dir: string;
let out: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'guides-src-'));
  out = mkdtempSync(join(tmpdir(), 'guides-out-'));
  for (const [f, text] of Object.entries(GUIDES)) writeFileSync(join(dir, f), text);
  writeFileSync(join(dir, 'flow.png'), PNG);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

const render = () => renderGuides(readGuideSources(dir), dir);
const main = (html: string) => html.slice(html.indexOf('<main>'), html.indexOf('</main>'));
const hrefs = (html: string) => [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1]!);

describe('partner guides (infra/guides.ts)', () => {
  it('renders README.md as the index and the guides with valid route names, in the navigation order', () => {
    const r = render();
    expect([...r.pages.keys()].sort()).toEqual(['getting-started', INDEX_PAGE, 'webhooks']);
    expect(r.guides).toEqual([
      { name: 'getting-started', title: 'Getting started' },
      { name: 'webhooks', title: 'Webhooks' },
    ]);
  });

  it('gives headings GitHub-style anchors, repeats numbered', () => {
    const html = render().pages.get('webhooks')!;
    expect(html).toContain('<h2 id="verifying-a-delivery">');
    expect(html).toContain('<h2 id="x-signature--replays-v2"><code>X-Signature</code> &amp; replays (v2)</h2>');
    expect(html).toContain('<h2 id="verifying-a-delivery-1">');
  });

  it('rewrites links between guides to their served URLs, fragments kept', () => {
    const { pages } = render();
    const start = main(pages.get('getting-started')!);
    expect(hrefs(start)).toEqual(expect.arrayContaining(['webhooks#verifying-a-delivery', '../guides', '#your-first-key', 'https://github.com/example/repo']));
    expect(hrefs(main(pages.get(INDEX_PAGE)!))).toEqual(['guides/getting-started', 'guides/webhooks']);
    expect(hrefs(main(pages.get('webhooks')!))).toEqual(['getting-started#your-first-key', 'getting-started#nope']);
  });

  it('leaves no link that the served pages cannot answer', () => {
    const { pages } = render();
    const served = new Set(['/v1/docs', '/v1/docs/guides', ...[...pages.keys()].filter((n) => n !== INDEX_PAGE).map((n) => `/v1/docs/guides/${n}`)]);
    for (const [name, html] of pages) {
      const at = new URL(name === INDEX_PAGE ? 'http://h/v1/docs/guides' : `http://h/v1/docs/guides/${name}`);
      for (const href of hrefs(html)) {
        const url = new URL(href, at);
        if (url.origin !== at.origin) continue;
        expect(served, `${name}: ${href}`).toContain(url.pathname);
      }
    }
  });

  it('keeps the text of a link to a guide that is not built, and of a file outside the guides with its repository path', () => {
    const r = render();
    const start = main(r.pages.get('getting-started')!);
    expect(start).not.toContain('going-live');
    expect(start).toContain('and going live (not written)');
    expect(start).toContain('the runbook (repository: docs/operations/runbook.md)');
    expect(start).toContain('recipe (repository: recipes/node/verify.ts)');
    expect(hrefs(start).some((h) => h.includes('..') && h !== '../guides')).toBe(false);
    expect(r.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('./going-live.md names a guide that is not built'),
        expect.stringContaining('getting-started has no heading #nope'),
      ]),
    );
  });

  it('shows raw HTML as text: no script, no event handler, no javascript: link', () => {
    const html = render().pages.get('webhooks')!;
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img[^>]*onerror/i);
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toContain('href="https://evil.example"');
    expect(html).toContain('<pre><code>&lt;script&gt;alert(&quot;guide&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;a href=&quot;https://evil.example&quot;&gt;raw&lt;/a&gt;');
    // A fenced block stays a readable code block, escaped.
    expect(html).toContain('<pre><code class="language-ts">const ok = a &lt; b &amp;&amp; c &gt; d;');
  });

  it('drops HTML comments, as GitHub hides them', () => {
    const html = render().pages.get(INDEX_PAGE)!;
    expect(html).not.toContain('Generated');
    expect(main(html)).toMatch(/^<main>\n<h1 id="partner-guides">Partner guides<\/h1>/);
  });

  it('loads nothing from another origin: a remote image becomes its alt text, a local one is inlined', () => {
    const { pages } = render();
    for (const html of pages.values()) {
      expect(externalLoads(html)).toEqual([]);
      expect(html).toMatch(/<style>[\s\S]+<\/style>/);
      expect(html).not.toMatch(/<link\b/);
    }
    const start = main(pages.get('getting-started')!);
    expect(start).toContain(`<img src="data:image/png;base64,${PNG.toString('base64')}" alt="diagram">`);
    expect(start).not.toContain('cdn.example.com');
    expect(start).toContain('remote');
  });

  it('lists every guide in each page, the current one marked, with a way back to the reference', () => {
    const html = render().pages.get('webhooks')!;
    expect(html).toContain('<a href="webhooks" aria-current="page">Webhooks</a>');
    expect(html).toContain('<a href="getting-started">Getting started</a>');
    expect(html).toContain('<a class="reference" href="../../docs">API reference</a>');
    expect(html).toContain('<li><a href="#verifying-a-delivery">Verifying a delivery</a></li>');
  });

  it('writes one file per page, and an index listing the guides when there is no README.md', () => {
    const built = buildGuides(out, dir);
    expect(readdirSync(out).sort()).toEqual(['getting-started.html', 'index.html', 'webhooks.html']);
    expect(readFileSync(join(out, 'webhooks.html'), 'utf8')).toBe(built.pages.get('webhooks'));
    const bare = mkdtempSync(join(tmpdir(), 'guides-bare-'));
    try {
      mkdirSync(join(bare, 'src'));
      writeFileSync(join(bare, 'src', 'sandbox.md'), '# Sandbox\n');
      const r = buildGuides(join(bare, 'out'), join(bare, 'src'));
      expect(hrefs(main(r.pages.get(INDEX_PAGE)!))).toEqual(['guides/sandbox']);
      expect(buildGuides(join(bare, 'none'), join(bare, 'missing')).guides).toEqual([]);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe("the reference's links to the guides (withGuideLinks)", () => {
  const doc = buildOpenApi();
  const tag = (d: Record<string, unknown>, name: string) => (d.tags as { name: string; description: string }[]).find((t) => t.name === name)!.description;

  it('maps every tag of the document to guides', () => {
    for (const t of doc.tags as { name: string }[]) expect(TAG_GUIDES[t.name], t.name).toBeDefined();
  });

  it('links a tag only to the guides that exist', () => {
    const linked = withGuideLinks(doc, [
      { name: 'webhooks', title: 'Webhooks' },
      { name: 'cancellations', title: 'Cancelling' },
    ]);
    expect(tag(linked, 'Webhooks')).toMatch(/\n\nGuide: \[Webhooks\]\(docs\/guides\/webhooks\)\.$/);
    expect(tag(linked, 'Webhook events')).toContain('(docs/guides/webhooks)');
    expect(tag(linked, 'Bookings')).toMatch(/Guide: \[Cancelling\]\(docs\/guides\/cancellations\)\.$/);
    expect(tag(linked, 'Bookings')).not.toContain('docs/guides/bookings');
    expect(tag(linked, 'Settlements')).toBe(tag(doc, 'Settlements'));
    expect((linked.info as { description: string }).description).toContain('[partner guides](docs/guides)');
    expect(JSON.stringify(linked)).not.toMatch(/docs\/guides\/(getting-started|settlements|authentication)/);
  });

  it('adds no link when no guide is built', () => {
    expect(withGuideLinks(doc, [])).toEqual(doc);
  });

  it('groups every tag for the navigation (x-tagGroups)', () => {
    const groups = doc['x-tagGroups'] as { tags: string[] }[];
    expect(groups.flatMap((g) => g.tags).sort()).toEqual((doc.tags as { name: string }[]).map((t) => t.name).sort());
  });
});
