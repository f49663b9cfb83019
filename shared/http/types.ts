import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RequestState } from './context';

/** API Gateway HTTP API (payload format 2.0) proxy event and result. */
export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> };

/**
 * The Lambda context as the route's middlewares extend it: the per-request
 * state travels here, typed, from the first middleware to the handler.
 */
export type RouteContext = Context & { http?: RequestState };
