import { isDeepStrictEqual } from 'node:util';
import { GATEWAY_ANSWERS } from '../../infra/local/gateway-quotas';
import { matchRoute } from '../../shared/http/router';
import { ErrorBody } from '../../shared/http/schemas';

/**
 * Every answer the integration tests receive is held to the route table:
 * a 2xx JSON body must parse against the response schema its route declares
 * for that status, field for field (a field the schema does not declare is
 * drift too), and an error body must be the spec's error shape with the
 * request id of its X-Request-Id header, unless API Gateway answered it
 * itself, in its own shape, with its own request id (`apigw-requestid`).
 */
export function checkContract(method: string, pathWithQuery: string, status: number, headers: Headers, body: unknown): void {
  const path = `/v1${pathWithQuery.split('?')[0]}`;
  const json = (headers.get('content-type') ?? '').startsWith('application/json');
  if (status >= 400) {
    if (!json) return;
    // A function that failed or took too long, an event too large: API Gateway answers itself, in its own shape.
    const gateway = Object.values(GATEWAY_ANSWERS).find((a) => a.status === status && a.contentType === 'application/json');
    if (gateway && JSON.stringify(body) === gateway.body) {
      if (!headers.get('apigw-requestid')) throw new Error(`${method} ${path} -> ${status}: API Gateway's answer without apigw-requestid`);
      return;
    }
    const parsed = ErrorBody.safeParse(body);
    if (!parsed.success) throw new Error(`${method} ${path} -> ${status}: not the error shape: ${parsed.error.message}`);
    if (parsed.data.request_id !== headers.get('x-request-id')) throw new Error(`${method} ${path} -> ${status}: request_id differs from X-Request-Id`);
    return;
  }
  if (status < 200 || status >= 300 || !json) return;
  const match = matchRoute(method.toUpperCase(), path);
  if (match.kind !== 'route') throw new Error(`${method} ${path} -> ${status}: answered, but no route of the table matches`);
  const schema = match.route.responses[status]?.schema;
  if (!schema) throw new Error(`${method} ${path} -> ${status}: route ${match.route.id} declares no schema for ${status}`);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${method} ${path} -> ${status}: body does not match ${match.route.id}'s schema: ${parsed.error.message}`);
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parsed.data)), body)) {
    throw new Error(`${method} ${path} -> ${status}: body has fields ${match.route.id}'s schema does not declare:\n${JSON.stringify(body).slice(0, 2000)}`);
  }
}
