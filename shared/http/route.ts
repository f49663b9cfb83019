import middy from '@middy/core';
import type { z } from 'zod';
import type { RouteDef } from '../routes';
import { httpContext } from './middleware/http-context';
import { parseRequest, type ParsedInput } from './middleware/parse-request';
import { platform } from './middleware/platform';
import { runIdempotent } from '../platform/idempotency';
import { toResult } from './respond';
import { getState, type Principal } from './context';
import type { ApiEvent, ApiResult, HandlerResult, LambdaContext } from './types';

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

export interface RouteInput<R extends RouteDef> {
  params: Infer<NonNullable<R['request']>['params']>;
  query: Infer<NonNullable<R['request']>['query']>;
  body: Infer<NonNullable<R['request']>['body']>;
  requestId: string;
  /** Present on every keyed route. */
  principal: R['access'] extends 'key' ? Principal : Principal | undefined;
}

/**
 * Wires the middy stack shared by every HTTP route: request id and error shape,
 * then authentication, rate limit, signature, parsing and validation, then the
 * idempotent execution of the domain call.
 */
export function route<R extends RouteDef>(def: R, impl: (input: RouteInput<R>) => Promise<HandlerResult>) {
  return middy<ApiEvent, ApiResult, Error, LambdaContext>()
    .use(httpContext(def))
    .use(platform(def))
    .use(parseRequest(def))
    .handler(async (event) => {
      const state = getState(event);
      const input = (event as unknown as { parsed: ParsedInput }).parsed;
      const run = async () =>
        toResult(
          await impl({
            params: input.params,
            query: input.query,
            body: input.body,
            requestId: state.requestId,
            principal: state.principal,
          } as RouteInput<R>),
        );
      return def.write && state.principal ? runIdempotent(event, state, run) : run();
    });
}
