import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, posix, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt, { type Token } from 'markdown-it';
import { GUIDE_NAME } from '../shared/meta/schemas';
import { externalLoads } from './external-loads';

const ROOT = resolve(import.meta.dirname, '..');

/** Where the partner guides are written, as Markdown (README.md is their index). */
export const GUIDE_SOURCE = join(ROOT, 'docs', 'guides');
/** The guides' place in the repository: relative links are resolved from here. */
const SOURCE_PATH = 'docs/guides';
/** The side navigation's order; a guide not named here follows, alphabetically. */
export const GUIDE_ORDER = [
  'getting-started',
  'authentication',
  'idempotency',
  'bookings',
  'cancellations',
  'settlements',
  'webhooks',
  'reviews-and-photos',
  'sandbox',
  'errors',
  'versioning',
  'going-live',
  'console',
];
/** The index page's file in the output directory (README.md rendered). */
export const INDEX_PAGE = 'index';
const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };
const MAX_IMAGE_BYTES = 512 * 1024;

export interface GuideSource {
  /** The guide's name, or INDEX_PAGE for README.md. */
  name: string;
  markdown: string;
}

export interface RenderedGuides {
  /** HTML by page name (INDEX_PAGE and each guide's name). */
  pages: Map<string, string>;
  /** The guides, in navigation order, with the title of their first heading. */
  guides: { name: string; title: string }[];
  /** Links whose fragment names no heading of their target: the page loads, at its top. */
  warnings: string[];
}

type Page = string;
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The URL of `to` as a link from page `from`, relative so the pages work under any base path:
 * the index is served at /v1/docs/guides, a guide at /v1/docs/guides/<name>, the reference at /v1/docs.
 */
export function pageHref(from: Page, to: Page | 'reference'): string {
  const up = from === INDEX_PAGE ? '' : '../';
  if (to === 'reference') return `${up}../docs`;
  if (to === INDEX_PAGE) return `${up}guides`;
  return from === INDEX_PAGE ? `guides/${to}` : to;
}

/** The Markdown files of `dir` that are guides (README.md as INDEX_PAGE); none when it does not exist. */
export function readGuideSources(dir = GUIDE_SOURCE): GuideSource[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .flatMap((f) => {
      const name = f === 'README.md' ? INDEX_PAGE : f.slice(0, -3);
      // index.md would take the index's page; other names would not fit the route's {name}.
      if (f !== 'README.md' && (name === INDEX_PAGE || !GUIDE_NAME.test(name))) return [];
      return [{ name, markdown: readFileSync(join(dir, f), 'utf8') }];
    });
}

const md = new MarkdownIt({
  // Raw HTML is parsed only to be neutralised (neutralise below): comments go, the rest is shown as text.
  html: true,
  linkify: false,
  typographer: false,
});

const textOf = (inline: Token | undefined): string =>
  (inline?.children ?? []).map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : t.type === 'image' ? textOf(t) : '')).join('');

interface Parsed {
  name: string;
  tokens: Token[];
  title: string;
  slugs: Set<string>;
  /** The second-level headings, for the page's own table of contents. */
  sections: { id: string; text: string }[];
}

/** A token turned into plain text in place (the renderer escapes it). */
function asText(t: Token, content: string) {
  t.type = 'text';
  t.tag = '';
  t.attrs = null;
  t.children = null;
  t.content = content;
}

const COMMENT = /<!--[\s\S]*?(-->|$)/g;

/**
 * Raw HTML of a guide never reaches the page as markup, so a guide cannot inject script: an HTML comment
 * (invisible on GitHub too: generated-file notes, include markers) is dropped, any other HTML block is
 * shown as code and inline HTML as text, both escaped by the renderer.
 */
function neutralise(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.type === 'html_block') {
      if (!t.content.replace(COMMENT, '').trim()) continue;
      t.type = 'code_block';
    }
    for (const c of t.children ?? []) if (c.type === 'html_inline') asText(c, c.content.replace(COMMENT, ''));
    out.push(t);
  }
  return out;
}

function parse(src: GuideSource): Parsed {
  const tokens = neutralise(md.parse(src.markdown, {}));
  // GitHub's anchors: the heading's text slugged, -1, -2... for repeats, so links written for GitHub work here.
  const slugger = new GithubSlugger();
  const slugs = new Set<string>();
  const sections: Parsed['sections'] = [];
  let title = '';
  tokens.forEach((t, i) => {
    if (t.type !== 'heading_open') return;
    const text = textOf(tokens[i + 1]);
    const id = slugger.slug(text);
    t.attrSet('id', id);
    slugs.add(id);
    if (t.tag === 'h1' && !title) title = text;
    if (t.tag === 'h2') sections.push({ id, text });
  });
  const fallback = src.name === INDEX_PAGE ? 'Partner guides' : src.name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
  return { name: src.name, tokens, title: title || fallback, slugs, sections };
}

type LinkTarget = { href: string } | { text: string } | { drop: true };

/**
 * Where a guide's link points on the served pages: another guide's page (its fragment kept), a page
 * of this one, an absolute URL as written; a file elsewhere in the repository is not served, so the
 * link becomes its text followed by the repository path; a guide that is not built loses its link.
 */
function resolveLink(from: Page, href: string, built: Map<string, Parsed>, warn: (m: string) => void, sourceDir: string, kind: 'link' | 'image'): LinkTarget {
  if (kind === 'link' && href.startsWith('#')) return { href };
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) {
    // An image from another origin would be a load from it; a link is only a navigation the reader chooses.
    if (kind === 'image') return { drop: true };
    return /^(https?|mailto):/i.test(href) ? { href } : { drop: true };
  }
  const [pathPart = '', fragment] = href.split('#', 2);
  let path: string;
  try {
    path = decodeURI(pathPart.split('?')[0]!);
  } catch {
    return { drop: true };
  }
  const repoPath = posix.normalize(posix.join(SOURCE_PATH, path));
  if (repoPath.startsWith('..')) return { drop: true };
  if (kind === 'image') {
    const type = IMAGE_TYPES[extname(repoPath).toLowerCase()];
    const file = resolve(sourceDir, path);
    if (!type || !existsSync(file) || !statSync(file).isFile() || statSync(file).size > MAX_IMAGE_BYTES) return { drop: true };
    return { href: `data:${type};base64,${readFileSync(file).toString('base64')}` };
  }
  const inGuides = repoPath === SOURCE_PATH || posix.dirname(repoPath) === SOURCE_PATH;
  if (inGuides && (repoPath === SOURCE_PATH || repoPath.endsWith('.md'))) {
    const base = posix.basename(repoPath, '.md');
    const target = repoPath === SOURCE_PATH || base === 'README' ? INDEX_PAGE : base;
    const page = built.get(target);
    if (!page) {
      warn(`${from}: ${href} names a guide that is not built; shown as text`);
      return { drop: true };
    }
    if (fragment && !page.slugs.has(fragment)) warn(`${from}: ${href}: ${target} has no heading #${fragment}`);
    const url = target === from && fragment ? '' : pageHref(from, target);
    return { href: `${url}${fragment ? `#${fragment}` : ''}` };
  }
  return { text: repoPath };
}

function rewriteLinks(p: Parsed, built: Map<string, Parsed>, warn: (m: string) => void, sourceDir: string) {
  for (const block of p.tokens) {
    const open: LinkTarget[] = [];
    for (const t of block.children ?? []) {
      if (t.type === 'image') {
        const target = resolveLink(p.name, String(t.attrGet('src') ?? ''), built, warn, sourceDir, 'image');
        if ('href' in target) t.attrSet('src', target.href);
        else asText(t, t.content); // its alt text
      } else if (t.type === 'link_open') {
        const target = resolveLink(p.name, String(t.attrGet('href') ?? ''), built, warn, sourceDir, 'link');
        open.push(target);
        if (!('href' in target))
          asText(t, ''); // the link's text stays; only the anchor goes
        else {
          t.attrSet('href', target.href);
          if (/^(https?:)?\/\//.test(target.href)) t.attrSet('rel', 'noopener noreferrer');
        }
      } else if (t.type === 'link_close') {
        const target = open.pop();
        if (target && !('href' in target)) asText(t, 'text' in target ? ` (repository: ${target.text})` : '');
      }
    }
  }
}

const STYLE = `
:root{color-scheme:light;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--code:#f6f8fa;--link:#0550ae}
*{box-sizing:border-box}
body{margin:0;font:16px/1.6 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);display:flex;min-height:100vh}
nav{flex:0 0 17rem;border-right:1px solid var(--line);padding:1.5rem 1rem;background:#fafbfc;position:sticky;top:0;height:100vh;overflow:auto;font-size:.95rem}
nav a{color:var(--fg);text-decoration:none;display:block;padding:.15rem .5rem;border-radius:4px}
nav a:hover{background:#eaeef2}
nav a[aria-current=page]{font-weight:600;background:#ddf4ff}
nav ul{list-style:none;margin:0;padding:0}
nav ul ul{margin:.1rem 0 .4rem .8rem;font-size:.875rem}
nav ul ul a{color:var(--muted)}
nav .home{font-weight:700;font-size:1.05rem;margin-bottom:.75rem}
nav .reference{margin-top:1rem;border-top:1px solid var(--line);padding-top:.75rem}
main{flex:1;min-width:0;max-width:52rem;padding:2rem 2.5rem 4rem}
a{color:var(--link)}
h1,h2,h3,h4{line-height:1.25;margin:1.75em 0 .6em}
h1{margin-top:0;font-size:2rem}
h2{border-bottom:1px solid var(--line);padding-bottom:.3em}
code{font:.875em/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;background:var(--code);padding:.15em .35em;border-radius:4px}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:1rem;overflow-x:auto}
pre code{background:none;padding:0;white-space:pre;font-size:.85rem}
table{border-collapse:collapse;display:block;overflow-x:auto;margin:1rem 0}
th,td{border:1px solid var(--line);padding:.4rem .75rem;text-align:left;vertical-align:top}
th{background:var(--code)}
blockquote{margin:1rem 0;padding:0 1rem;color:var(--muted);border-left:4px solid var(--line)}
img{max-width:100%}
@media (max-width:50rem){body{display:block}nav{position:static;height:auto;border-right:0;border-bottom:1px solid var(--line)}main{padding:1.5rem 1rem}}
`;

function page(p: Parsed, all: Parsed[], body: string): string {
  const item = (g: Parsed) => {
    const current = g.name === p.name;
    const toc =
      current && g.sections.length ? `<ul>${g.sections.map((s) => `<li><a href="#${escapeHtml(s.id)}">${escapeHtml(s.text)}</a></li>`).join('')}</ul>` : '';
    return `<li><a href="${pageHref(p.name, g.name)}"${current ? ' aria-current="page"' : ''}>${escapeHtml(g.title)}</a>${toc}</li>`;
  };
  const index = all.find((g) => g.name === INDEX_PAGE);
  const home = `<a class="home" href="${pageHref(p.name, INDEX_PAGE)}"${p.name === INDEX_PAGE ? ' aria-current="page"' : ''}>${escapeHtml(index?.title ?? 'Partner guides')}</a>`;
  const guides = all.filter((g) => g.name !== INDEX_PAGE);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(p.title)} · Partner travel booking service</title>
<style>${STYLE}</style>
</head>
<body>
<nav aria-label="Guides">${home}<ul>${guides.map(item).join('')}</ul><a class="reference" href="${pageHref(p.name, 'reference')}">API reference</a></nav>
<main>
${body}</main>
</body>
</html>
`;
}

const rank = (name: string) => {
  const i = GUIDE_ORDER.indexOf(name);
  return i < 0 ? GUIDE_ORDER.length : i;
};

/**
 * The guides as self-contained HTML pages: markdown-it with raw HTML off, GitHub's heading anchors,
 * links between guides pointing at their served URLs, inline CSS, no script, nothing from another origin.
 * Without a README.md, the index page lists the guides.
 */
export function renderGuides(sources: GuideSource[], sourceDir = GUIDE_SOURCE): RenderedGuides {
  const parsed = sources.map(parse).sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
  if (!parsed.some((p) => p.name === INDEX_PAGE)) parsed.unshift(parse({ name: INDEX_PAGE, markdown: '# Partner guides\n' }));
  const built = new Map(parsed.map((p) => [p.name, p]));
  const warnings: string[] = [];
  const pages = new Map<string, string>();
  for (const p of parsed) {
    rewriteLinks(p, built, (m) => warnings.push(m), sourceDir);
    let body = md.renderer.render(p.tokens, md.options, {});
    if (p.name === INDEX_PAGE && !sources.some((s) => s.name === INDEX_PAGE)) {
      const list = parsed.filter((g) => g.name !== INDEX_PAGE).map((g) => `<li><a href="${pageHref(INDEX_PAGE, g.name)}">${escapeHtml(g.title)}</a></li>`);
      body += `<ul>\n${list.join('\n')}\n</ul>\n`;
    }
    const html = page(p, parsed, body);
    const external = externalLoads(html);
    if (external.length) throw new Error(`guide ${p.name} would load from other origins: ${external.join(', ')}`);
    pages.set(p.name, html);
  }
  return {
    pages,
    guides: parsed.filter((p) => p.name !== INDEX_PAGE).map((p) => ({ name: p.name, title: p.title })),
    warnings,
  };
}

/** The guides of `sourceDir` rendered into `outDir` (<name>.html, index.html), which is emptied first. */
export function buildGuides(outDir: string, sourceDir = GUIDE_SOURCE): RenderedGuides & { dir: string } {
  const rendered = renderGuides(readGuideSources(sourceDir), sourceDir);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const [name, html] of rendered.pages) writeFileSync(join(outDir, `${name}.html`), html);
  for (const w of rendered.warnings) console.warn(`guides: ${w}`);
  return { ...rendered, dir: outDir };
}

// `node --import tsx infra/guides.ts OUT_DIR` (the CDK's bundling hook).
if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: guides.ts OUT_DIR');
  buildGuides(resolve(out));
}

/** The guides each tag of the OpenAPI document links to from the reference page (those that exist). */
export const TAG_GUIDES: Record<string, string[]> = {
  Meta: ['authentication'],
  Team: ['authentication'],
  Catalog: ['bookings'],
  Quotes: ['bookings', 'idempotency'],
  Bookings: ['bookings', 'cancellations', 'idempotency'],
  Settlements: ['settlements'],
  Webhooks: ['webhooks'],
  Events: ['webhooks'],
  'Webhook events': ['webhooks'],
  Reviews: ['reviews-and-photos'],
  Files: ['reviews-and-photos'],
  'Test helpers': ['sandbox'],
};
/** What the document's own description links to, beside the index. */
const START_GUIDES = ['getting-started', 'errors'];

type Json = Record<string, unknown>;

/**
 * The OpenAPI document as the reference page shows it: each tag's description ends with links to its
 * guides, and the document's description with the guides' index, for the guides that are built (a guide
 * not written yet gets no link). The links are relative to the reference page (GET /v1/docs).
 */
export function withGuideLinks(doc: Json, guides: { name: string; title: string }[]): Json {
  if (!guides.length) return doc;
  const titles = new Map(guides.map((g) => [g.name, g.title]));
  const link = (name: string) => `[${titles.get(name)!.replace(/[[\]]/g, '')}](docs/guides/${name})`;
  const info = doc.info as Json;
  const start = START_GUIDES.filter((n) => titles.has(n)).map(link);
  const tags = (doc.tags as Json[]).map((t) => {
    const names = (TAG_GUIDES[t.name as string] ?? []).filter((n) => titles.has(n));
    return names.length ? { ...t, description: `${t.description}\n\n${names.length > 1 ? 'Guides' : 'Guide'}: ${names.map(link).join(', ')}.` } : t;
  });
  return {
    ...doc,
    info: {
      ...info,
      description: `${info.description}\n\nThe [partner guides](docs/guides) explain each task step by step${start.length ? `; start with ${start.join(' and ')}` : ''}.`,
    },
    tags,
  };
}
