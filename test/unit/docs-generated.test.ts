import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docsMarkdown, generatedFiles, includesOf, ROOT, refreshIncludes } from '../../scripts/docs/docs-files';
import { render as renderErrors } from '../../scripts/docs/generators/errors';
import { ERROR_ADVICE } from '../../shared/kernel/error-advice';
import { ERROR_CODES } from '../../shared/kernel/errors';
import { ROUTE_LIST } from '../../shared/routes';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const STALE = 'run npm run docs:generate';
const markdownFiles = ['README.md', ...docsMarkdown()];

describe('generated docs', () => {
  it('every generated file is up to date', async () => {
    const files = await generatedFiles();
    expect(files.map((f) => f.file)).toContain('docs/guides/errors.md');
    for (const { file, content } of files) {
      expect(existsSync(join(ROOT, file)), `${file} is missing: ${STALE}`).toBe(true);
      expect(read(file) === content, `${file} is stale: ${STALE}`).toBe(true);
    }
  });

  it('every include block holds its file as it is', () => {
    for (const file of docsMarkdown()) {
      const text = read(file);
      expect(refreshIncludes(text, file) === text, `${file} has a stale include block: ${STALE}`).toBe(true);
    }
  });

  it('an include block is refilled from its file, fenced by its extension', () => {
    const md = 'a\n<!-- include: tsconfig.json -->\nold\n<!-- /include -->\nb';
    expect(includesOf(md)).toEqual(['tsconfig.json']);
    expect(refreshIncludes(md, 'x.md')).toBe(
      `a\n<!-- include: tsconfig.json -->\n\`\`\`json\n${read('tsconfig.json').replace(/\n$/, '')}\n\`\`\`\n<!-- /include -->\nb`,
    );
    expect(() => refreshIncludes('<!-- include: nope/missing.py -->\n<!-- /include -->', 'x.md')).toThrow(/nope\/missing\.py does not exist/);
  });

  it('the error catalogue lists every code of ERROR_CODES with its status and advice', () => {
    const page = renderErrors();
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(page, code).toContain(`| \`${code}\` | ${status} |`);
      expect(ERROR_ADVICE[code as keyof typeof ERROR_CODES]?.todo, code).toBeTruthy();
      expect(page, code).toContain(ERROR_ADVICE[code as keyof typeof ERROR_CODES].todo.replaceAll('|', '\\|'));
    }
  });
});

describe('the guides', () => {
  const guides = docsMarkdown().filter((f) => f.startsWith('docs/guides/'));
  const text = guides.map(read).join('\n');

  it('document every route of the route table', () => {
    for (const r of ROUTE_LIST) {
      const row = `\`${r.method} ${r.path.replace(/^\/v1/, '')}\``;
      expect(text.includes(row), `${r.id}: no guide of docs/guides/ names ${row}`).toBe(true);
    }
  });

  it('are all listed in the index', () => {
    const index = read('docs/guides/README.md');
    for (const g of guides.filter((f) => f !== 'docs/guides/README.md')) expect(index, g).toContain(`](${g.replace('docs/guides/', '')})`);
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of withoutFences(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/`/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** The Markdown without its fenced blocks (a `#` line there is no heading). */
const withoutFences = (markdown: string) => markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
/** ... and without inline code, where links are not links. */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, '');

describe('relative links in README.md and docs/', () => {
  it.each(markdownFiles)('%s: every relative link points to an existing file and heading', (file) => {
    const source = read(file);
    for (const [, target] of withoutCode(source).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path ? resolve(ROOT, dirname(file), decodeURIComponent(path)) : join(ROOT, file);
      expect(existsSync(resolved), `${file}: ${target} points to a missing file`).toBe(true);
      if (anchor && resolved.endsWith('.md')) {
        expect(anchors(readFileSync(resolved, 'utf8')).has(anchor), `${file}: ${target} points to a missing heading`).toBe(true);
      }
    }
  });
});
