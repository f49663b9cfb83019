import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../kernel/errors';

export const SIGNATURE_WINDOW_SECONDS = 300;

/**
 * The signing versions a live write may announce in X-Signature-Version:
 * 1 (also when absent) is the spec's; 2 also signs the Idempotency-Key, so two
 * requests that differ only by their key never share a signature.
 */
export const SIGNATURE_VERSIONS = ['1', '2'] as const;
export type SignatureVersion = (typeof SIGNATURE_VERSIONS)[number];

/** Everything a live write signs but its body. */
export interface SignedParts {
  version: SignatureVersion;
  timestamp: string;
  method: string;
  /** The path as sent, from /v1, with its query string. */
  pathWithQuery: string;
  /** Signed by version 2 only ('' when the header is absent). */
  idempotencyKey?: string;
}

/**
 * The signing string up to the body, which follows it as raw bytes:
 * - version 1: timestamp LF METHOD LF path?query LF
 * - version 2: "v2" LF timestamp LF METHOD LF path?query LF Idempotency-Key LF
 * The leading "v2" keeps the versions apart: no version 2 string is ever a version 1 string.
 */
export function signingPrefix(p: SignedParts): string {
  const common = `${p.timestamp}\n${p.method.toUpperCase()}\n${p.pathWithQuery}\n`;
  return p.version === '2' ? `v2\n${common}${p.idempotencyKey ?? ''}\n` : common;
}

/** What a version 1 live write signs: timestamp, METHOD, path with its query string, and the body, joined by LF. */
export function signingString(timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return `${signingPrefix({ version: '1', timestamp, method, pathWithQuery })}${body}`;
}

/** hex(HMAC-SHA256(secret, signing string)) of any version. The body is taken as the bytes sent. */
export function signParts(secret: string, parts: SignedParts, body: string | Uint8Array): string {
  return createHmac('sha256', secret)
    .update(signingPrefix(parts), 'utf8')
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

/** The spec's signature (version 1): what a partner computes. */
export function sign(secret: string, timestamp: string, method: string, pathWithQuery: string, body: string | Uint8Array): string {
  return signParts(secret, { version: '1', timestamp, method, pathWithQuery }, body);
}

/** The version of X-Signature-Version, or undefined for a value the service does not know. */
export function signatureVersionOf(header: string | undefined): SignatureVersion | undefined {
  if (header === undefined || header.trim() === '') return '1';
  return SIGNATURE_VERSIONS.find((v) => v === header.trim());
}

/**
 * What the service signed, for a refused signature (as AWS's SignatureDoesNotMatch
 * returns its string to sign): the parts as received, the body as its length and
 * SHA-256, and the signing string with the body replaced by that hash. Everything
 * here is what the caller sent; nothing derives from the secret.
 */
export function signatureDiagnostics(parts: SignedParts, body: string | Uint8Array) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const bodySha256 = createHash('sha256').update(bytes).digest('hex');
  return {
    signature_version: Number(parts.version),
    timestamp: parts.timestamp,
    method: parts.method.toUpperCase(),
    path: parts.pathWithQuery,
    ...(parts.version === '2' ? { idempotency_key: parts.idempotencyKey ?? '' } : {}),
    body_length: bytes.byteLength,
    body_sha256: bodySha256,
    string_to_sign: `${signingPrefix(parts)}${bodySha256}`,
  };
}

const FORMULAS: Record<SignatureVersion, string> = {
  '1': 'timestamp LF METHOD LF path?query LF body',
  '2': '"v2" LF timestamp LF METHOD LF path?query LF Idempotency-Key LF body',
};

/** 401 for a signature that does not match, with what the service signed (never what it expected). */
export const signatureInvalid = (parts: SignedParts, body: string | Uint8Array) =>
  new ApiError(
    'auth.signature.invalid',
    `X-Signature does not match: the service signed, as version ${parts.version} (X-Signature-Version), HMAC-SHA256(secret, ${FORMULAS[parts.version]}) over the bytes received. details holds each part it signed and string_to_sign, the signing string with the body replaced by its SHA-256: build the same from what you signed and compare them line by line.`,
    signatureDiagnostics(parts, body),
  );

/** 401 for an X-Signature-Version the service does not know. */
export const unknownSignatureVersion = (announced: string) =>
  new ApiError(
    'auth.signature.invalid',
    `X-Signature-Version must be ${SIGNATURE_VERSIONS.join(' or ')} (1, the spec's signing, when absent); 2 also signs the Idempotency-Key.`,
    { announced_version: announced.slice(0, 20), supported_versions: SIGNATURE_VERSIONS.map(Number) },
  );

export type TimestampCheck = { ok: true } | { ok: false; missing?: true; reason: string };

export function checkTimestamp(header: string | undefined, nowSeconds: number): TimestampCheck {
  if (header === undefined || header === '') return { ok: false, missing: true, reason: 'X-Timestamp is required on live writes (Unix time in seconds).' };
  if (!/^\d{1,12}$/.test(header)) return { ok: false, reason: 'X-Timestamp must be an integer Unix time in seconds.' };
  const skew = Math.abs(nowSeconds - Number(header));
  if (skew > SIGNATURE_WINDOW_SECONDS) {
    return { ok: false, reason: `X-Timestamp is ${skew} s away from server time; the window is ${SIGNATURE_WINDOW_SECONDS} s.` };
  }
  return { ok: true };
}

/** Constant-time comparison of the expected signature with the X-Signature header. */
export function signatureMatches(expectedHex: string, header: string | undefined): boolean {
  if (!header || !/^[0-9a-f]{64}$/.test(header)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(header, 'hex'));
}
