/**
 * npm run docs:generate: writes every generated docs file (scripts/docs/generators/*.ts)
 * and refreshes the include blocks of docs/**.md. test/unit/docs-generated.test.ts fails
 * until the result is committed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { docsMarkdown, generatedFiles, ROOT, refreshIncludes } from './docs-files';

const write = (file: string, content: string) => {
  const path = join(ROOT, file);
  let before: string | undefined;
  try {
    before = readFileSync(path, 'utf8');
  } catch {}
  if (before === content) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  console.log(`wrote ${file}`);
};

for (const { file, content } of await generatedFiles()) write(file, content);
for (const file of docsMarkdown()) write(file, refreshIncludes(readFileSync(join(ROOT, file), 'utf8'), file));
