import { createHash, createHmac } from 'node:crypto';

/** The secret of an API key: the part after the last `_` (`sk_live_<key id>_<secret>`). */
export const keySecret = (apiKey: string): string => apiKey.slice(apiKey.lastIndexOf('_') + 1);

export const isLiveKey = (apiKey: string): boolean => apiKey.startsWith('sk_live_');

/**
 * The signing versions, announced in `X-Signature-Version`: 1 (or no header) is the
 * spec's; 2 also signs the `Idempotency-Key`, so two requests never share a signature.
 */
export type SignatureVersion = 1 | 2;

/** What a live write signs, but its body. `idempotencyKey` is signed by version 2 only. */
export interface SignedRequest {
  timestamp: string;
  method: string;
  /** From `/v1`, with the query string exactly as sent. */
  pathWithQuery: string;
  idempotencyKey?: string;
}

/** The signing string up to its body (which follows as the raw bytes sent). */
function signingPrefix(version: SignatureVersion, r: SignedRequest): string {
  const common = `${r.timestamp}\n${r.method.toUpperCase()}\n${r.pathWithQuery}\n`;
  return version === 2 ? `v2\n${common}${r.idempotencyKey ?? ''}\n` : common;
}

/**
 * X-Signature of a live write, version 1 (the spec's): hex HMAC-SHA256, keyed with the
 * key's secret, over `timestamp LF METHOD LF path-with-query LF body`, the body being the
 * exact bytes sent.
 */
export function signRequest(secret: string, timestamp: string, method: string, pathWithQuery: string, body: string | Uint8Array): string {
  return signRequestVersion(1, secret, { timestamp, method, pathWithQuery }, body);
}

/**
 * X-Signature of any version. Version 2 (send `X-Signature-Version: 2`) signs
 * `"v2" LF timestamp LF METHOD LF path-with-query LF Idempotency-Key LF body`.
 */
export function signRequestVersion(version: SignatureVersion, secret: string, request: SignedRequest, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(signingPrefix(version, request)).update(body).digest('hex');
}

/**
 * What the service returns in `details` of 401 `auth.signature.invalid`: the parts it
 * signed, as it received them, and its signing string with the body replaced by the
 * body's SHA-256 in hex. Never the secret nor the signature it expected.
 */
export interface SignatureDiagnostics {
  signature_version: SignatureVersion;
  timestamp: string;
  method: string;
  path: string;
  /** Version 2 only. */
  idempotency_key?: string;
  body_length: number;
  body_sha256: string;
  string_to_sign: string;
}

/** The diagnostics of what you signed, built as the service builds its own: compare the two. */
export function signatureDiagnostics(version: SignatureVersion, request: SignedRequest, body: string | Uint8Array): SignatureDiagnostics {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const sha = createHash('sha256').update(bytes).digest('hex');
  return {
    signature_version: version,
    timestamp: request.timestamp,
    method: request.method.toUpperCase(),
    path: request.pathWithQuery,
    ...(version === 2 ? { idempotency_key: request.idempotencyKey ?? '' } : {}),
    body_length: bytes.byteLength,
    body_sha256: sha,
    string_to_sign: `${signingPrefix(version, request)}${sha}`,
  };
}

const COMPARED = ['signature_version', 'timestamp', 'method', 'path', 'idempotency_key', 'body_length', 'body_sha256'] as const;

/**
 * The parts where what the service signed (an error's diagnostics) differs from what
 * you signed: `[]` when they all agree, and then the secret is the one that differs.
 */
export function signatureMismatch(
  service: SignatureDiagnostics,
  signed: SignatureDiagnostics,
): { part: (typeof COMPARED)[number]; service: unknown; signed: unknown }[] {
  return COMPARED.filter((part) => service[part] !== signed[part]).map((part) => ({ part, service: service[part], signed: signed[part] }));
}
