export {
  backoffDelay,
  type CallArgs,
  type Client,
  type ClientOptions,
  createClient,
  type OperationId,
  type PageIterator,
  PartnerClient,
  type Result,
  retryAfterMs,
} from './client';
export {
  type AdvanceSandboxClockArgs,
  type ReadySandboxClock,
  type SandboxClock,
  type SandboxClockHelpers,
  SandboxClockTimeoutError,
  type WaitUntilReadyOptions,
} from './clock';
export { PartnerApiError, PartnerNetworkError, WebhookVerificationError } from './errors';
export { WEBHOOK_EVENT_TYPES, type WebhookEvent, type WebhookEventOf, type WebhookEventType } from './generated/events';
export { ERROR_CODES, type ErrorCode, OPERATIONS, type OperationErrorCodes, RESOURCES } from './generated/operations';
export type { components, operations, paths } from './generated/schema';
export { type PaymentConfirmationClaims, signPaymentConfirmation } from './payments';
export {
  isLiveKey,
  keySecret,
  type SignatureDiagnostics,
  type SignatureVersion,
  type SignedRequest,
  signatureDiagnostics,
  signatureMismatch,
  signRequest,
  signRequestVersion,
} from './signing';
export { type VerifyWebhookOptions, verifyWebhook } from './webhooks';
