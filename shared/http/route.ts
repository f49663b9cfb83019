import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { z } from 'zod';
import type { Seal } from '../db/client';
import { logger } from '../kernel/logger';
import type { Tenant } from '../kernel/tenant';
import { tracer } from '../kernel/tracing';
import { runtimeRulesCheck } from '../kernel/tz-check';
import { type Principal, type RouteContext, stateOf, tenantOf } from './context';
import { crashAfterCommit, failAtCommit, SimulatedCrash, stallAfterCommit } from './fault';
import { runIdempotent, sealFor } from './idempotent';
import { httpContext } from './middleware/http-context';
import { parseRequest } from './middleware/parse-request';
import { platform } from './middleware/platform';
import { jsonResult } from './respond';
import { type RouteDef, successStatus } from './route-def';
import type { ApiEvent, ApiResult } from './types';

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;
type JsonOf<D> = D extends { schema: infer S extends z.ZodType } ? z.input<S> : unknown;
type Keyed<R extends RouteDef, T> = R['access'] extends 'key' ? T : undefined;

/** The body of any of the route's declared responses. */
type ResponseBody<R extends RouteDef> = { [S in keyof R['responses'] & number]: JsonOf<R['responses'][S]> }[keyof R['responses'] & number];

export interface RouteInput<R extends RouteDef> {
  params: Infer<NonNullable<R['request']>['params']>;
  query: Infer<NonNullable<R['request']>['query']>;
  body: Infer<NonNullable<R['request']>['body']>;
  requestId: string;
  /** What the domain acts for: partner, environment, member, role. */
  tenant: Keyed<R, Tenant>;
  /** The calling key itself (GET /me); domain calls take `tenant`. */
  principal: Keyed<R, Principal>;
  /**
   * For writes: the seal to hand the operation, so that the request's
   * idempotency outcome (the success response, `view` of the result) commits in
   * the operation's own transaction. Pass the same view the handler answers with.
   */
  seal: <T>(view: (result: T) => ResponseBody<R>) => Seal<T>;
  /**
   * Epoch ms after which a domain loop (retries of a lost race) must stop and
   * answer: the invocation's own deadline less ANSWER_RESERVE_MS, so the
   * caller gets a typed refusal rather than the timeout's 500.
   */
  deadline: number;
}

/** What an answer needs after the domain's last attempt: the idempotency record, the publish, the log line. */
export const ANSWER_RESERVE_MS = 2_500;

/** A non-JSON answer (CSV, PDF): the raw body and its content type. */
export interface RawResult {
  status?: number;
  raw: { body: string; contentType: string; isBase64?: boolean };
  headers?: Record<string, string>;
}

/**
 * What a route's handler answers: one of its declared responses, its body
 * typed by that response's schema, so a view that drifts from the schema
 * fails the typecheck. `status` defaults to the lowest declared status.
 */
export type RouteResult<R extends RouteDef> =
  | { [S in keyof R['responses'] & number]: { status?: S; body: JsonOf<R['responses'][S]>; headers?: Record<string, string> } }[keyof R['responses'] & number]
  | RawResult;

function toResult(def: RouteDef, r: RouteResult<RouteDef>): ApiResult {
  const status = r.status ?? successStatus(def);
  if ('raw' in r) {
    return { statusCode: status, headers: { 'content-type': r.raw.contentType, ...r.headers }, body: r.raw.body, isBase64Encoded: r.raw.isBase64 ?? false };
  }
  if (status === 204) return { statusCode: 204, headers: { ...r.headers }, body: '' };
  return jsonResult(status, r.body, r.headers);
}

/**
 * Wires the middy stack shared by every HTTP route: the trace (X-Ray, never the
 * response: it may carry customer data) and the invocation's log context, the
 * request id, error shape, log line and metrics, then authentication, rate
 * limit, signature, parsing and validation, then the idempotent execution of
 * the domain call. Outermost, once the answer is final, the check of the
 * runtime's time-zone data (kernel/tz-check.ts).
 */
export interface RouteOptions<R extends RouteDef> {
  /**
   * A write whose success describes a state that keeps moving (the sandbox clock's advance): a retry with the
   * same Idempotency-Key answers it as it stands now, instead of the stored first answer. A stored refusal is
   * replayed as ever.
   */
  replaysCurrent?: (input: RouteInput<R>) => Promise<RouteResult<R>>;
}

export function route<R extends RouteDef>(def: R, impl: (input: RouteInput<R>) => Promise<RouteResult<R>>, options: RouteOptions<R> = {}) {
  return middy<ApiEvent, ApiResult, Error, RouteContext>()
    .use(runtimeRulesCheck())
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpContext(def))
    .use(platform(def))
    .use(parseRequest(def))
    .handler(async (event, context) => {
      const state = stateOf(context);
      const input = state.input!;
      const principal = state.principal;
      const routeInput = () =>
        ({
          params: input.params,
          query: input.query,
          body: input.body,
          requestId: state.requestId,
          tenant: principal ? tenantOf(principal) : undefined,
          principal,
          seal: (view) => failAtCommit(event, sealFor(def, state, view)),
          deadline: Date.now() + context.getRemainingTimeInMillis() - ANSWER_RESERVE_MS,
        }) as RouteInput<R>;
      const run = async () => {
        const result = toResult(def, (await impl(routeInput())) as RouteResult<RouteDef>);
        if (crashAfterCommit(event)) throw new SimulatedCrash();
        await stallAfterCommit(event);
        return result;
      };
      const replaysCurrent = options.replaysCurrent;
      const current = replaysCurrent && (async () => toResult(def, (await replaysCurrent(routeInput())) as RouteResult<RouteDef>));
      return def.write && principal ? runIdempotent(event, state, run, current) : run();
    });
}
