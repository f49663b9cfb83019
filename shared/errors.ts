/**
 * Typed errors carry their HTTP status and stable `domain.subdomain.detail`
 * code; the error middleware turns them into the spec's error shape.
 * Every code the service emits is declared here, so the list in the README and
 * the OpenAPI document come from one place.
 */
export const ERROR_CODES = {
  'request.route.not_found': { status: 404, description: 'No route matches the path.' },
  'request.method.not_allowed': { status: 405, description: 'The path exists but not with this method.' },
  'request.body.malformed_json': { status: 400, description: 'The body is not valid JSON.' },
  'request.body.too_large': { status: 413, description: 'The body exceeds the maximum size.' },
  'request.content_type.unsupported': { status: 415, description: 'Write bodies must be application/json.' },
  'validation.request.invalid': { status: 400, description: 'Body, path or query parameters failed validation; `details.errors` names each field.' },
  'resource.not_found': { status: 404, description: 'The resource does not exist in this partner and environment.' },
  'internal.error': { status: 500, description: 'Unexpected failure; retry later and quote the request id.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = details;
    this.headers = headers;
  }
}

export const notFound = (what: string, id?: string) =>
  new ApiError('resource.not_found', id ? `${what} ${id} was not found.` : `${what} was not found.`, id ? { id } : undefined);
