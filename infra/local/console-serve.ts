import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { CONSOLE_PATH, type ConsoleConnections, consoleCsp } from '../console-policy';
import { percentDecoded, refuseTunnels } from './http-guard';
import { ROOT } from './lambda';
import { closeServer } from './services';

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
 * The console's security headers, as CloudFront's response headers policy sets them in AWS: no inline script or
 * style, no framing, no referrer, and calls to the origins of `consoleCsp` only.
 */
const consoleHeaders = (to: ConsoleConnections): Record<string, string> => ({
  'content-security-policy': consoleCsp(to),
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

export interface ConsoleConfig {
  apiBaseUrl: string;
  cognito: { region: string; userPoolId: string; clientId: string; endpoint: string };
}

/** Serves the built app under /console/ and its config.json; / and /console redirect to /console/ (the distribution's function). */
function consoleHandler(config: ConsoleConfig, to: ConsoleConnections) {
  const headers = consoleHeaders(to);
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const reply = (status: number, type: string, body: Buffer | string, cache = 'no-cache') => {
      res.writeHead(status, { ...headers, 'content-type': type, 'cache-control': cache, 'content-length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, 'text/plain; charset=utf-8', 'The console is static: GET only.\n');
    if (path === '/' || path === CONSOLE_PATH.slice(0, -1)) {
      res.writeHead(302, { ...headers, location: CONSOLE_PATH });
      return res.end();
    }
    if (!path.startsWith(CONSOLE_PATH)) return reply(404, 'text/plain; charset=utf-8', 'Not found.\n');
    const decoded = percentDecoded(path.slice(CONSOLE_PATH.length));
    // Not a path at all: the S3 origin behind CloudFront answers 400 InvalidURI (S3's error responses); here it once threw and ended the stack.
    if (decoded === null) return reply(400, 'text/plain; charset=utf-8', 'Bad request: the path is not valid percent-encoded UTF-8.\n');
    const rel = decoded || 'index.html';
    if (rel === 'config.json') return reply(200, TYPES['.json']!, JSON.stringify(config));
    const file = normalize(join(CONSOLE_DIST, rel));
    if (!file.startsWith(CONSOLE_DIST + sep) || !existsSync(file) || !statSync(file).isFile()) {
      if (!existsSync(join(CONSOLE_DIST, 'index.html')))
        return reply(503, 'text/plain; charset=utf-8', 'The console is not built: run `npm run -s console:build`, then reload.\n');
      return reply(404, 'text/plain; charset=utf-8', 'Not found.\n');
    }
    // Vite names its assets by content hash: they never change under one name.
    const immutable = rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    reply(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file), immutable);
  };
}

/**
 * The console on an origin of its own (http://127.0.0.1:<port>), as CloudFront serves it in AWS, so that it calls
 * the API, Cognito and S3 across origins, with their CORS, as it does there. Its port is taken at once (the first
 * start takes a minute, and an ephemeral port left free that long gets taken): `port`, or with `orAnyPort` a free
 * one when it is in use. Requests wait until `open` gives the console its configuration.
 */
export async function startConsoleServer(port: number, orAnyPort: boolean) {
  let serve: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const early: (() => void)[] = [];
  const server = refuseTunnels(createServer((req, res) => (serve ? serve(req, res) : early.push(() => serve!(req, res)))));
  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen(port);
  } catch (e) {
    if (!orAnyPort || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    await listen(0);
  }
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}${CONSOLE_PATH}`,
    open(config: ConsoleConfig, to: ConsoleConnections) {
      serve = consoleHandler(config, to);
      for (const answer of early.splice(0)) answer();
    },
    stop: () => closeServer(server),
  };
}
