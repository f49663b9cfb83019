import { type SignedParts, signatureVersionOf } from '../platform/signature';
import { headerValue, pathWithQuery } from './headers';
import type { ApiEvent } from './types';

/** What a live write signs, as received; undefined for an X-Signature-Version the service does not know. */
export function signedParts(event: ApiEvent, timestamp: string): SignedParts | undefined {
  const version = signatureVersionOf(headerValue(event, 'x-signature-version'));
  if (!version) return undefined;
  return {
    version,
    timestamp,
    method: event.requestContext.http.method,
    pathWithQuery: pathWithQuery(event),
    idempotencyKey: version === '2' ? (headerValue(event, 'idempotency-key') ?? '') : undefined,
  };
}
