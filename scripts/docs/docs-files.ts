/**
 * The generated parts of the docs: files written by the generators of
 * scripts/docs/generators/ and the include blocks of docs/**.md. Both
 * `npm run docs:generate` and test/unit/docs-generated.test.ts read them from here,
 * so what the test expects is exactly what the script writes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const GENERATORS = join(ROOT, 'scripts', 'docs', 'generators');

/** What every module of scripts/docs/generators/ default-exports. */
export interface DocGenerator {
  /** Repository-relative path of the file it writes. */
  file: string;
  render(): string | Promise<string>;
}

/** Every generator's file and the content it renders now. */
export async function generatedFiles(): Promise<{ file: string; content: string }[]> {
  const out: { file: string; content: string }[] = [];
  for (const name of readdirSync(GENERATORS)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const mod = (await import(pathToFileURL(join(GENERATORS, name)).href)) as { default?: DocGenerator };
    const gen = mod.default;
    if (!gen || typeof gen.file !== 'string' || typeof gen.render !== 'function') {
      throw new Error(`scripts/docs/generators/${name} must default-export { file, render() }`);
    }
    out.push({ file: gen.file, content: await gen.render() });
  }
  return out;
}

/** Every Markdown file under docs/, repository-relative, sorted. */
export function docsMarkdown(dir = join(ROOT, 'docs')): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...docsMarkdown(path));
    else if (entry.name.endsWith('.md')) files.push(relative(ROOT, path));
  }
  return files.sort();
}

const LANGUAGES: Record<string, string> = { '.py': 'python', '.java': 'java', '.sh': 'sh', '.ts': 'ts', '.js': 'js', '.json': 'json', '.md': 'md' };

/** A fenced block of a file's content, fenced longer than any backtick run inside it. */
function fenced(path: string, content: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${LANGUAGES[extname(path)] ?? ''}\n${content.replace(/\n$/, '')}\n${fence}`;
}

const INCLUDE = /<!-- include: (\S+) -->\n[\s\S]*?<!-- \/include -->/g;

/** The Markdown with every include block refilled from its file (repository-relative path). */
export function refreshIncludes(markdown: string, where: string): string {
  return markdown.replace(INCLUDE, (_, path: string) => {
    const file = join(ROOT, path);
    if (!existsSync(file)) throw new Error(`${where}: the include ${path} does not exist`);
    return `<!-- include: ${path} -->\n${fenced(path, readFileSync(file, 'utf8'))}\n<!-- /include -->`;
  });
}

/** The paths the include blocks of one Markdown text name. */
export const includesOf = (markdown: string): string[] => [...markdown.matchAll(INCLUDE)].map((m) => m[1]!);

/** The shell blocks marked to run: a ```sh fence right after `<!-- runnable -->`, with the line of their first command. */
export function runnableBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const re = /<!-- runnable -->\n```sh\n([\s\S]*?)\n```/g;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, m.index).split('\n').length + 2, code: m[1]! });
  }
  return blocks;
}
