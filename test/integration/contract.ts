import { isDeepStrictEqual } from 'node:util';
import { matchRoute } from '../../shared/http/router';
import { ErrorBody } from '../../shared/http/schemas';

/**
 * Every answer the integration tests receive is held to the route table:
 * a 2xx JSON body must parse against the response schema its route declares
 * for that status, field for field (a field the schema does not declare is
 * drift too), and an error body must be the spec's error shape with the
 * request id of its X-Request-Id header.
 */
export function checkContract(method: string, pathWithQuery: string, status: number, headers: Headers, body: unknown): void {
  const path = `/v1${pathWithQuery.split('?')[0]}`;
  const json = (headers.get('content-type') ?? '').startsWith('application/json');
  if (status >= 400) {
    if (!json) return;
    // A function that crashed is answered by API Gateway itself, in its own shape.
    if (status === 500 && isDeepStrictEqual(body, { message: 'Internal Server Error' })) return;
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
