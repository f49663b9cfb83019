import type { ErrorCode, OperationErrorCodes } from './generated/operations';
import type { SignatureDiagnostics } from './signing';

/**
 * Every error the API answers, as one class: the HTTP status, the stable
 * `code`, the English `message`, the `request_id` to quote to support, and the
 * structured `details` (validation errors name each field). `code` is typed by
 * the codes the document lists for the operation that failed.
 */
export class PartnerApiError<C extends string = ErrorCode> extends Error {
  override readonly name = 'PartnerApiError';
  readonly status: number;
  readonly code: C;
  readonly request_id: string;
  readonly details?: Record<string, unknown>;
  /** The operation that failed (its operationId). */
  readonly operation: string;
  readonly headers: Headers;

  constructor(init: { status: number; code: C; message: string; request_id: string; details?: Record<string, unknown>; operation: string; headers: Headers }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.request_id = init.request_id;
    this.details = init.details;
    this.operation = init.operation;
    this.headers = init.headers;
  }

  /**
   * For 401 `auth.signature.invalid`: what the service signed (the parts as it received
   * them, and its signing string with the body as its SHA-256). Compare it with
   * `signatureDiagnostics(...)` of what you signed, or let `signatureMismatch` name the parts
   * that differ. Undefined for any other error.
   */
  get signatureDiagnostics(): SignatureDiagnostics | undefined {
    const d = this.details;
    if (this.code !== 'auth.signature.invalid' || typeof d?.string_to_sign !== 'string') return undefined;
    return d as unknown as SignatureDiagnostics;
  }

  /** Narrows the error to one operation's documented codes: `if (e.is('createBooking')) switch (e.code) { ... }`. */
  is<K extends keyof OperationErrorCodes>(operation: K): this is PartnerApiError<OperationErrorCodes[K]> {
    return this.operation === operation;
  }
}

/** The request never got an answer (connection refused, reset, DNS, timeout) after every retry. */
export class PartnerNetworkError extends Error {
  override readonly name = 'PartnerNetworkError';
  constructor(
    message: string,
    readonly operation: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/** A webhook delivery whose signature or headers do not verify. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
