import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import { ApiError } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import { recordRefusal, recordRequest } from '../../kernel/metrics';
import { annotate } from '../../kernel/tracing';
import { recordAudit } from '../../platform/audit';
import { writeRequestLog } from '../../request-logs/line';
import { auditEventOf } from '../audit-event';
import type { RequestState, RouteContext } from '../context';
import { padAnswer, SimulatedCrash } from '../fault';
import { errorResult, toApiError } from '../respond';
import type { RouteDef } from '../route-def';
import type { ApiEvent, ApiResult } from '../types';

function newState(event: ApiEvent, def: RouteDef): RequestState {
  const raw = event.body ?? '';
  const bodyBytes = Buffer.from(raw, event.isBase64Encoded ? 'base64' : 'utf8');
  return {
    requestId: event.requestContext?.requestId || randomUUID(),
    route: def,
    startedAt: Date.now(),
    path: event.rawPath,
    headers: {},
    bodyBytes,
    pending: [],
  };
}

export const routeName = (def: RouteDef) => `${def.method} ${def.path}`;

/**
 * Outermost middleware of the route: assigns the request id (API Gateway's)
 * and puts it with the route on the invocation's log keys and on the trace,
 * decodes the raw body, and on the way out turns any error into the spec's
 * error shape and adds the headers every response carries (X-Request-Id, rate
 * limits, deprecation), lets the idempotency result and the audit line land,
 * and writes the request's log line and its metrics (count, latency, status
 * class; failed authentications and rate-limit refusals), and the line of the
 * partner's request log (shared/request-logs/line.ts).
 */
export function httpContext(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, RouteContext> {
  const finish = async (state: RequestState, event: ApiEvent, result: ApiResult): Promise<ApiResult> => {
    const replayed = result.headers['idempotent-replayed'] === 'true';
    // A replay is the stored response: it keeps the request id of the request that produced it.
    const requestId = replayed ? result.headers['x-request-id']! : state.requestId;
    const headers: Record<string, string> = { ...result.headers, ...state.headers, 'x-request-id': requestId };
    if (def.deprecated) {
      headers.deprecation = `@${Math.floor(Date.parse(def.deprecated.since) / 1000)}`;
      headers.sunset = new Date(def.deprecated.sunset).toUTCString();
    }
    const status = result.statusCode ?? 200;
    const durationMs = Date.now() - state.startedAt;
    logger.info('request', { status, duration_ms: durationMs, ...(replayed ? { replay_of: requestId } : {}) });
    recordRequest(routeName(def), status, durationMs, state.requestId);
    if (def.write && state.principal) {
      // The idempotency result and the audit line land together, before the response leaves (a success
      // sealed in the operation's transaction already holds both). If one fails the operation's outcome
      // still stands: it is logged, not turned into an error.
      const outcomes = await Promise.allSettled([
        ...state.pending,
        ...(state.audited ? [] : [recordAudit(state.principal.partnerId, auditEventOf(state, status, replayed))]),
      ]);
      for (const o of outcomes) if (o.status === 'rejected') logger.error('post-operation write failed', { error: (o.reason as Error).message });
    }
    const answer = { ...result, headers };
    // The partner's request log: one line on stdout, carried off by the log group's subscription filter (no AWS call here).
    writeRequestLog(state, event, answer, durationMs);
    return answer;
  };

  return {
    before: async (request) => {
      const state = newState(request.event, def);
      // The invocation's own keys (injectLambdaContext clears them at its end): every line of this request carries them.
      logger.appendKeys({ request_id: state.requestId, route: routeName(def) });
      annotate({ request_id: state.requestId, route: routeName(def) });
      request.context.http = state;
    },
    after: async (request) => {
      request.response = padAnswer(request.event, await finish(request.context.http!, request.event, request.response!));
    },
    onError: async (request) => {
      // A simulated crash leaves no response and writes nothing more, as a killed worker would.
      if (request.error instanceof SimulatedCrash) return;
      const state = request.context.http ?? newState(request.event, def);
      if (request.error instanceof ApiError) recordRefusal(request.error.code, request.error.status);
      request.response = padAnswer(request.event, await finish(state, request.event, errorResult(toApiError(request.error), state.requestId)));
    },
  };
}
