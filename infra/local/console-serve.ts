import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { ROOT } from './lambda';

/** Where `npm run -s console:build` writes the console (scripts/prerequisites.ts builds it when stale). */
export const CONSOLE_DIST = join(ROOT, 'console', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/**
 * The console's security headers, as CloudFront's response headers policy sets
 * them in AWS: no inline script or style, no framing, no referrer, and calls to
 * this origin only (the API and the local Cognito are both served here).
 */
export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export interface ConsoleConfig {
  apiBaseUrl: string;
  cognito: { region: string; userPoolId: string; clientId: string; endpoint: string };
}

/** Serves GET /console/ (the built app) and /console/config.json; false when the path is not the console's. */
export function serveConsole(config: ConsoleConfig) {
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (path !== '/console' && !path.startsWith('/console/')) return false;
    const reply = (status: number, type: string, body: Buffer | string, cache = 'no-cache') => {
      res.writeHead(status, { ...CONSOLE_HEADERS, 'content-type': type, 'cache-control': cache, 'content-length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      reply(405, 'text/plain; charset=utf-8', 'The console is static: GET only.\n');
      return true;
    }
    if (path === '/console') {
      res.writeHead(301, { ...CONSOLE_HEADERS, location: '/console/' });
      res.end();
      return true;
    }
    const rel = decodeURIComponent(path.slice('/console/'.length)) || 'index.html';
    if (rel === 'config.json') {
      reply(200, TYPES['.json']!, JSON.stringify(config));
      return true;
    }
    const file = normalize(join(CONSOLE_DIST, rel));
    if (!file.startsWith(CONSOLE_DIST + sep) || !existsSync(file) || !statSync(file).isFile()) {
      if (!existsSync(join(CONSOLE_DIST, 'index.html'))) {
        reply(503, 'text/plain; charset=utf-8', 'The console is not built: run `npm run -s console:build`, then reload.\n');
      } else {
        reply(404, 'text/plain; charset=utf-8', 'Not found.\n');
      }
      return true;
    }
    // Vite names its assets by content hash: they never change under one name.
    const immutable = rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    reply(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file), immutable);
    return true;
  };
}
