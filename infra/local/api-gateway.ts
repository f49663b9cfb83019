import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import { TextDecoder } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { matchRoute } from '../../shared/http/router';
import { FALLBACK_HANDLER } from '../../shared/platform/grants';
import { CONSOLE_CORS } from '../console-policy';
import {
  BODY_MAX_BYTES,
  EVENT_MAX_BYTES,
  GATEWAY_ANSWERS,
  type GatewayAnswer,
  HEAD_MAX_BYTES,
  headBytes,
  INTEGRATION_TIMEOUT_MS,
  jsonBytes,
  RESPONSE_MAX_BYTES,
} from './gateway-quotas';
import { refuseTunnels } from './http-guard';
import { invoke, lambdaContext } from './lambda';

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

/** Writes a proxy result as HTTP; API Gateway adds its request id to every answer. */
function send(
  res: ServerResponse,
  result: { statusCode?: number; headers?: Record<string, string | number | boolean>; body?: string; isBase64Encoded?: boolean; cookies?: string[] },
  requestId?: string,
) {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (requestId) headers['apigw-requestid'] = requestId;
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
  /** Lowers the integration timeout (tests of it); never above the HTTP API's 30 s. */
  integrationTimeoutMs?: number;
}

const list = (names: string[]) => names.map((n) => n.toLowerCase()).join(', ');

/** The HTTP API's CORS preflight answer (its CORS configuration, CONSOLE_CORS): only for the allowed origin, as API Gateway answers it. */
function preflight(req: IncomingMessage, res: ServerResponse, origin: string | undefined): boolean {
  if (req.method !== 'OPTIONS' || !origin || req.headers.origin !== origin || !req.headers['access-control-request-method']) return false;
  res.writeHead(204, {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': CONSOLE_CORS.methods.join(', '),
    'access-control-allow-headers': list(CONSOLE_CORS.headers),
    'access-control-max-age': String(CONSOLE_CORS.maxAgeSeconds),
  });
  res.end();
  return true;
}

/** Writes one of API Gateway's own answers, with the request's `apigw-requestid` when the answer has one. */
function answer(res: ServerResponse, a: GatewayAnswer, requestId?: string) {
  send(res, { statusCode: a.status, headers: { 'content-type': a.contentType }, body: a.body }, a.requestId ? requestId : undefined);
}

/**
 * Refuses a request before reading its body: answers at once, then reads the rest and drops it, so that
 * the client, still sending, reads the answer instead of a reset.
 */
function refuseUnread(req: IncomingMessage, res: ServerResponse, a: GatewayAnswer) {
  answer(res, a);
  req.resume();
}

/** The head API Gateway's front end answers for a request line and headers too large, as raw HTTP (the parser gave up on them). */
function rawAnswer(a: GatewayAnswer): string {
  return `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status]}\r\ncontent-type: ${a.contentType}\r\ncontent-length: ${Buffer.byteLength(a.body)}\r\nconnection: close\r\n\r\n${a.body}`;
}

/** Node's own limit on a request's head, above API Gateway's: the quota is counted in the handler, a larger head never parses. */
const NODE_MAX_HEADER_BYTES = 64 * 1024;

/**
 * The API Gateway emulation: matches the route table, invokes the route's
 * handler with a proxy event, writes its result back as HTTP. Unmatched
 * requests go to the same $default fallback handler as in AWS. API Gateway's
 * quotas (gateway-quotas.ts) are answered as AWS answers them: a head or a body
 * too large, an event or an answer over Lambda's 6 MB, no answer within the
 * integration timeout.
 */
export function startApiGateway(port: number, host = '127.0.0.1', opts: GatewayOptions = {}): Promise<Server> {
  const integrationTimeoutMs = Math.min(opts.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS, INTEGRATION_TIMEOUT_MS);
  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_BYTES }, (req, res) => {
    // What API Gateway does not serve (the console's files, the local Cognito) answers first, on the same port.
    const path = (req.url ?? '/').split('?')[0]!;
    if (opts.beside?.some((serve) => serve(req, res, path))) return;
    if (headBytes(req) > HEAD_MAX_BYTES) return refuseUnread(req, res, GATEWAY_ANSWERS.headTooLarge);
    if (preflight(req, res, opts.corsOrigin)) return;
    // A CORS request's answer carries the configured headers, as API Gateway adds them to the function's.
    if (opts.corsOrigin && req.headers.origin === opts.corsOrigin) {
      res.setHeader('access-control-allow-origin', opts.corsOrigin);
      res.setHeader('access-control-expose-headers', list(CONSOLE_CORS.exposeHeaders));
    }
    // A declared length over the quota is refused before a byte of the body is read.
    if (Number(req.headers['content-length'] ?? 0) > BODY_MAX_BYTES) return refuseUnread(req, res, GATEWAY_ANSWERS.bodyTooLarge);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size > BODY_MAX_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return refuseUnread(req, res, GATEWAY_ANSWERS.bodyTooLarge);
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooLarge) return;
      dispatch(req, res, Buffer.concat(chunks), integrationTimeoutMs).catch((e: Error) => {
        // Nothing a request sends may take the stack down.
        console.error('[api] dispatch failed:', e.message);
        if (!res.headersSent) answer(res, GATEWAY_ANSWERS.functionFailed);
      });
    });
    req.on('error', () => res.destroy());
  });
  refuseTunnels(server);
  // A head over Node's own limit never reaches the handler: API Gateway's answer for a head too large, written raw.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    if (err.code === 'HPE_HEADER_OVERFLOW') return socket.end(rawAnswer(GATEWAY_ANSWERS.headTooLarge));
    const requestId = randomUUID();
    const body = JSON.stringify({ code: 'request.malformed', message: 'The request is not valid HTTP/1.1.', request_id: requestId });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\nx-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

type Invocation = { result: Parameters<typeof send>[1] | undefined } | { error: Error } | { timedOut: true };

async function dispatch(req: IncomingMessage, res: ServerResponse, body: Buffer, integrationTimeoutMs: number) {
  const method = (req.method ?? 'GET').toUpperCase();
  const path = (req.url ?? '/').split('?')[0]!;
  const match = matchRoute(method, path);
  const [entry, routeKey, params] =
    match.kind === 'route' ? [match.route.handler, `${match.route.method} ${match.route.path}`, match.params] : [FALLBACK_HANDLER, '$default', undefined];
  // The function's own timeout, as the CDK sets it (the route's, else the default): middy answers at its deadline.
  const functionTimeoutMs = match.kind === 'route' && match.route.timeoutSeconds ? match.route.timeoutSeconds * 1000 : undefined;
  const event = toEvent(req, body, routeKey, params);
  const requestId = event.requestContext.requestId;
  // Lambda refuses an event over its quota: the function never runs.
  const eventBytes = jsonBytes(event);
  if (eventBytes > EVENT_MAX_BYTES) {
    console.error(`[api] ${routeKey}: the event is ${eventBytes} bytes, over Lambda's ${EVENT_MAX_BYTES} (RequestEntityTooLargeException)`);
    return answer(res, GATEWAY_ANSWERS.eventTooLarge, requestId);
  }
  const invocation: Promise<Invocation> = invoke<Parameters<typeof send>[1]>(entry, event, lambdaContext(routeKey, functionTimeoutMs)).then(
    (result) => ({ result }),
    (error: Error) => ({ error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Invocation>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), integrationTimeoutMs);
  });
  const outcome = await Promise.race([invocation, deadline]);
  clearTimeout(timer);
  if ('timedOut' in outcome) {
    // The client gets API Gateway's answer now; the function goes on (it may still commit) and its answer goes nowhere.
    console.error(`[api] ${routeKey}: no answer within the ${integrationTimeoutMs} ms integration timeout (request ${requestId})`);
    answer(res, GATEWAY_ANSWERS.timedOut, requestId);
    const late = await invocation;
    console.error(`[api] ${routeKey}: the function ${'error' in late ? 'failed' : 'answered'} after the integration timeout; dropped (request ${requestId})`);
    return;
  }
  if ('error' in outcome) {
    // What API Gateway answers when the function fails (a crash, an unhandled error).
    const e = outcome.error;
    if (e.name === 'SimulatedCrash') console.error(`[api] ${routeKey}: ${e.message}`);
    else console.error(`[api] ${routeKey} integration failed:`, e);
    return answer(res, GATEWAY_ANSWERS.functionFailed, requestId);
  }
  // Lambda refuses an answer over its quota (Function.ResponseSizeTooLarge) once the function ran: the function failed.
  const resultBytes = jsonBytes(outcome.result);
  if (resultBytes > RESPONSE_MAX_BYTES) {
    console.error(`[api] ${routeKey}: the answer is ${resultBytes} bytes, over Lambda's ${RESPONSE_MAX_BYTES} (Function.ResponseSizeTooLarge)`);
    return answer(res, GATEWAY_ANSWERS.functionFailed, requestId);
  }
  send(res, outcome.result ?? {}, requestId);
}
