/**
 * What the partner console may reach across origins, the same in AWS (infra/constructs) and on the local stack
 * (infra/local), which serves the console on an origin of its own as CloudFront does: its path, the API's CORS for
 * it, and its Content-Security-Policy. No CDK here: the local stack imports it.
 */

/** The console's path, in AWS and locally: its build's base (console/vite.config.ts), its files' key prefix in the bucket. */
export const CONSOLE_PATH = '/console/';

/**
 * CORS of the API for the console's origin (the only one): what the console sends, and the response headers
 * it reads besides the CORS-safelisted ones (the request id of an error, the rate limit, a download's name).
 */
export const CONSOLE_CORS = {
  methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  headers: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Environment'],
  exposeHeaders: ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Content-Disposition'],
  maxAgeSeconds: 3600,
};

/** The origins the console's page calls besides its own. */
export interface ConsoleConnections {
  /** The API (execute-api in AWS). */
  api: string;
  /** Cognito's endpoint, for the sign-in. */
  cognito: string;
  /** The settlement documents' bucket: a document too large to answer inline is a 303 to a presigned GET there. */
  documents: string;
}

/**
 * The console's Content-Security-Policy: its own files only (no inline script or style, no eval), images
 * also as data: URLs (the TOTP QR code), requests to itself, the API, Cognito and the documents' bucket
 * (connect-src is checked again at each redirect), never framed.
 */
export const consoleCsp = (to: ConsoleConnections) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${to.api} ${to.cognito} ${to.documents}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
