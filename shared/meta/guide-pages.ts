import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { notFound } from '../kernel/errors';

/** The index page's file in the guides' directory (infra/guides.ts writes README.md there as index.html). */
const INDEX_FILE = 'index.html';

const pages = new Map<string, string>();

/**
 * One rendered guide page from the directory the build wrote (GUIDES_DIR: the Lambda bundle's guides/,
 * the local stack's state directory); `undefined` reads the index. A guide that was not built is a 404.
 */
export function guidePage(name?: string): string {
  const dir = process.env.GUIDES_DIR;
  if (!dir) throw new Error('GUIDES_DIR is not set: the guides were not built');
  const file = name === undefined ? INDEX_FILE : `${name}.html`;
  let html = pages.get(file);
  if (html === undefined) {
    // The route's schema admits only [a-z0-9-] names: the file stays in the directory.
    const path = join(dir, file);
    if (!existsSync(path)) throw notFound('Guide', name);
    html = readFileSync(path, 'utf8');
    pages.set(file, html);
  }
  return html;
}

/** Headers of a guide page: the build leaves it no script, and the policy allows none either. */
export const GUIDE_HEADERS = {
  'cache-control': 'public, max-age=300',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};
