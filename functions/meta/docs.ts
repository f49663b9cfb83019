import { readFileSync } from 'node:fs';
import { route } from '../../shared/http/route';
import { metaRoutes } from '../../shared/meta/routes';

let html: string | undefined;

/**
 * The self-contained API reference page, built from the OpenAPI document at build time
 * (infra/reference-docs.ts): the Lambda bundle carries it, the local stack builds it at start.
 */
export const handler = route(metaRoutes.getDocs, async () => {
  const file = process.env.REFERENCE_HTML;
  if (!file) throw new Error('REFERENCE_HTML is not set: the reference page was not built');
  html ??= readFileSync(file, 'utf8');
  return {
    raw: { body: html, contentType: 'text/html; charset=utf-8' },
    headers: {
      'cache-control': 'public, max-age=300',
      // Inline scripts and styles only: the page may call this API, and nothing else.
      'content-security-policy':
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:",
    },
  };
});
