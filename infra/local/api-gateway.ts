import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TextDecoder } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { matchRoute } from '../../shared/http/router';
import { invoke, lambdaContext } from './lambda';

/** API Gateway HTTP API rejects payloads over 10 MB; so does the emulation, in the error shape. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
const FALLBACK_ENTRY = 'functions/meta/fallback.ts';
// ignoreBOM keeps a leading byte order mark: the handler sees (and the signature covers) the exact bytes sent.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function joinHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const k = req.rawHeaders[i]!.toLowerCase();
    const v = req.rawHeaders[i + 1]!;
    out[k] = out[k] === undefined ? v : `${out[k]},${v}`;
  }
  return out;
}

function parseQuery(raw: string): Record<string, string> | undefined {
  if (!raw) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw)) out[k] = out[k] === undefined ? v : `${out[k]},${v}`;
  return out;
}

/** Builds the payload-format-2.0 event API Gateway sends for this request. */
export function toEvent(req: IncomingMessage, body: Buffer, routeKey: string, pathParameters?: Record<string, string>): APIGatewayProxyEventV2 {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const rawQueryString = q === -1 ? '' : url.slice(q + 1);
  const headers = joinHeaders(req);
  const now = new Date();
  let text: string | undefined;
  let isBase64Encoded = false;
  if (body.length > 0) {
    try {
      text = utf8.decode(body);
    } catch {
      text = body.toString('base64');
      isBase64Encoded = true;
    }
  }
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    cookies: headers.cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: parseQuery(rawQueryString),
    pathParameters,
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: (headers.host ?? '127').split('.')[0]!,
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: text,
    isBase64Encoded,
  };
}

function send(
  res: ServerResponse,
  result: { statusCode?: number; headers?: Record<string, string | number | boolean>; body?: string; isBase64Encoded?: boolean; cookies?: string[] },
) {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

export interface GatewayOptions {
  /** Servers of other paths on this port: each answers true when it took the request. */
  beside?: ((req: IncomingMessage, res: ServerResponse, path: string) => boolean)[];
  /** The one origin the HTTP API's CORS configuration allows (the console's, in AWS). */
  corsOrigin?: string;
}

export const CORS_HEADERS = 'authorization, content-type, idempotency-key, x-environment';

/** The HTTP API's CORS preflight answer: only for the allowed origin, as API Gateway answers it. */
function preflight(req: IncomingMessage, res: ServerResponse, origin: string | undefined): boolean {
  if (req.method !== 'OPTIONS' || !origin || req.headers.origin !== origin || !req.headers['access-control-request-method']) return false;
  res.writeHead(204, {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
    'access-control-allow-headers': CORS_HEADERS,
    'access-control-max-age': '3600',
  });
  res.end();
  return true;
}

/**
 * The API Gateway emulation: matches the route table, invokes the route's
 * handler with a proxy event, writes its result back as HTTP. Unmatched
 * requests go to the same $default fallback handler as in AWS.
 */
export function startApiGateway(port: number, host = '127.0.0.1', opts: GatewayOptions = {}): Promise<Server> {
  const server = createServer((req, res) => {
    // What API Gateway does not serve (the console's files, the local Cognito) answers first, on the same port.
    const path = (req.url ?? '/').split('?')[0]!;
    if (opts.beside?.some((serve) => serve(req, res, path))) return;
    if (preflight(req, res, opts.corsOrigin)) return;
    if (opts.corsOrigin && req.headers.origin === opts.corsOrigin) res.setHeader('access-control-allow-origin', opts.corsOrigin);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > GATEWAY_MAX_BODY) {
        if (!tooLarge) {
          tooLarge = true;
          chunks.length = 0;
          const requestId = randomUUID();
          // Answer at once, then drain the rest so the client reads the answer instead of a reset.
          send(res, {
            statusCode: 413,
            headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, connection: 'close' },
            body: JSON.stringify({
              code: 'request.body.too_large',
              message: `The request body exceeds the gateway maximum of ${GATEWAY_MAX_BODY} bytes.`,
              request_id: requestId,
              details: { max_bytes: GATEWAY_MAX_BODY },
            }),
          });
        }
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooLarge) return;
      dispatch(req, res, Buffer.concat(chunks)).catch((e: Error) => {
        // Nothing a request sends may take the stack down.
        console.error('[api] dispatch failed:', e.message);
        if (!res.headersSent)
          send(res, { statusCode: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Internal Server Error' }) });
      });
    });
    req.on('error', () => res.destroy());
  });
  // A request line and headers over Node's 16 KB limit never reach a handler: answer them in the error shape too.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const requestId = randomUUID();
    const body = JSON.stringify(
      tooLarge
        ? { code: 'request.header.too_large', message: 'The request line and headers exceed 16 KB.', request_id: requestId, details: { max_bytes: 16 * 1024 } }
        : { code: 'request.malformed', message: 'The request is not valid HTTP/1.1.', request_id: requestId },
    );
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\nx-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

async function dispatch(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const method = (req.method ?? 'GET').toUpperCase();
  const path = (req.url ?? '/').split('?')[0]!;
  const match = matchRoute(method, path);
  const [entry, routeKey, params] =
    match.kind === 'route' ? [match.route.handler, `${match.route.method} ${match.route.path}`, match.params] : [FALLBACK_ENTRY, '$default', undefined];
  const event = toEvent(req, body, routeKey, params);
  try {
    const result = await invoke<Parameters<typeof send>[1]>(entry, event, lambdaContext(routeKey));
    send(res, result ?? {});
  } catch (e) {
    // What API Gateway answers when the integration fails (a crash, a timeout).
    if ((e as Error).name === 'SimulatedCrash') console.error(`[api] ${routeKey}: ${(e as Error).message}`);
    else console.error(`[api] ${routeKey} integration failed:`, e);
    send(res, {
      statusCode: 500,
      headers: { 'content-type': 'application/json', 'x-request-id': event.requestContext.requestId },
      body: JSON.stringify({ message: 'Internal Server Error' }),
    });
  }
}
