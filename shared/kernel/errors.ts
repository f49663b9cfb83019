import type { ErrorDetailsInput } from '../http/schemas';
import { MAX_JSON_DEPTH } from './json-depth';

/**
 * Typed errors carry their HTTP status and stable `domain.subdomain.detail`
 * code; the error middleware turns them into the spec's error shape.
 * Every code the service emits is declared here, so the error catalogue (docs/guides/errors.md) and
 * the OpenAPI document come from one place.
 */
export const ERROR_CODES = {
  'request.route.not_found': { status: 404, description: 'No route matches the path.' },
  'request.method.not_allowed': { status: 405, description: 'The path exists but not with this method.' },
  'request.body.malformed_json': { status: 400, description: 'The body is not valid JSON (or starts with a byte order mark).' },
  'request.body.invalid_utf8': { status: 400, description: 'The body is not valid UTF-8.' },
  'request.body.duplicate_key': {
    status: 400,
    description: 'An object in the body has the same key twice; `details.field` names it (JSON parsers disagree on which one wins).',
  },
  'request.body.too_deep': {
    status: 400,
    description: `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (\`details.max_depth\`, where level ${MAX_JSON_DEPTH + 1} opens: \`details.position\`, in bytes); no operation takes more than a few.`,
  },
  'request.malformed': { status: 400, description: 'The request is not valid HTTP/1.1.' },
  'request.body.too_large': { status: 413, description: 'The body exceeds the maximum size.' },
  'validation.required.field': { status: 400, description: 'A required field is absent; `details.errors` names each field and what was expected.' },
  'validation.field.invalid': {
    status: 400,
    description: 'A field has the wrong type, format or value; `details.errors` names each field and what was expected.',
  },
  'validation.parameter.unknown': {
    status: 400,
    description: 'A query parameter the operation does not take; `details.errors` names it and lists the known ones.',
  },
  'auth.api_key.missing': { status: 401, description: 'The Authorization header is absent.' },
  'auth.api_key.invalid': { status: 401, description: 'The key is malformed, unknown, revoked or expired, or its member is disabled.' },
  'auth.timestamp.skew': { status: 401, description: 'Live write whose X-Timestamp is more than 300 seconds from server time, or not a Unix time in seconds.' },
  'auth.signature.invalid': {
    status: 401,
    description:
      'Live write whose X-Signature is absent or does not match, or whose X-Signature-Version is unknown. details holds what the service signed (each part as received, the body as its length and SHA-256, string_to_sign), never the secret nor the expected signature.',
  },
  'auth.timestamp.missing': { status: 401, description: 'Live write without an X-Timestamp header.' },
  'auth.signature.replayed': {
    status: 401,
    description:
      'Version 1 signing only: this signature was already accepted with another Idempotency-Key within the 300 s window (a replay, or an identical request signed in the same second). Sign with X-Signature-Version: 2, which also signs the Idempotency-Key.',
  },
  'auth.environment.live_required': {
    status: 403,
    description: 'The change reaches production (team roles; with a key, ending console sessions): it needs a live key, and a signature.',
  },
  'auth.session.invalid': {
    status: 401,
    description: 'A console session token that is malformed, expired or signed out, or whose member is disabled or removed.',
  },
  'auth.session.environment_required': { status: 400, description: 'A console session request without X-Environment: sandbox or live.' },
  'auth.session.reauthentication_required': {
    status: 403,
    description: 'A live write from a console session whose sign-in (password and TOTP) is more than 15 minutes old: sign in again.',
  },
  'auth.scope.insufficient': { status: 403, description: "The key's member lacks the scope the route requires." },
  'rate_limit.exceeded': { status: 429, description: 'Too many requests for this key in the current minute; see Retry-After.', transient: true },
  'idempotency.key.missing': { status: 400, description: 'A write without an Idempotency-Key header.' },
  'idempotency.key.invalid': { status: 400, description: 'An Idempotency-Key that is blank or longer than 255 characters.' },
  'idempotency.key.reused': { status: 409, description: 'The Idempotency-Key was already used for a different request (method, path or body).' },
  'idempotency.request.in_progress': {
    status: 409,
    description:
      'A request with this Idempotency-Key is still running, or died and still holds the key; Retry-After is the time until its claim runs out (at most 30 s): retry with the same key then.',
    transient: true,
  },
  'pagination.limit.invalid': { status: 400, description: '`limit` is not an integer of at least 1.' },
  'pagination.cursor.invalid': { status: 400, description: 'The cursor is too long, corrupted, forged, or from another partner or environment.' },
  'pagination.cursor.wrong_endpoint': { status: 400, description: 'The cursor was issued by another list endpoint.' },
  'team.role.self_change': { status: 403, description: 'Members cannot change their own role.' },
  'team.key.other_admin': { status: 403, description: 'POST /api-keys for another PARTNER_ADMIN: only that admin (or the operators) may issue their keys.' },
  'team.role.last_admin': {
    status: 409,
    description: 'The change (a role, a disable, a removal) would leave the partner without an enabled PARTNER_ADMIN.',
  },
  'team.member.self': { status: 403, description: 'Members cannot disable or remove themselves.' },
  'team.member.exists': {
    status: 409,
    description:
      'POST /team/members: the e-mail is already a member of the partner, signs in to the console of another partner, or is being invited right now.',
  },
  'team.member.already_active': { status: 409, description: 'Resending an invitation to a member who has already signed in to the console.' },
  'team.member.disabled': { status: 409, description: 'Resending an invitation to a disabled member: enable them first.' },
  'resource.not_found': { status: 404, description: 'The resource does not exist in this partner and environment.' },
  'quote.rate_pack.not_found': { status: 404, description: 'POST /quotes: no such rate pack in the catalog of this environment.' },
  'quote.start_date.in_past': { status: 422, description: 'POST /quotes: start_date is before today (Morocco time).' },
  'quote.start_time.invalid': { status: 422, description: 'POST /quotes: start_time is not a departure of a SCHEDULED pack, or is given for a FLEXIBLE pack.' },
  'quote.slot.not_sellable': {
    status: 422,
    description:
      'POST /quotes: the adventure or slot is not sold then (`details.reason`: not_operating, beyond_booking_window, sales_closed, slot_closed, adventure_withdrawn).',
  },
  'quote.party.too_large': { status: 422, description: 'POST /quotes: more travelers than the rate pack takes per booking.' },
  'quote.party.too_small': { status: 422, description: 'POST /quotes: fewer travelers than the rate pack needs.' },
  'quote.traveler.age_out_of_range': { status: 422, description: 'POST /quotes: a traveler fits no age bracket (`details.travelers` lists them).' },
  'quote.capacity.insufficient': { status: 422, description: 'POST /quotes: fewer places left in the slot than travelers.' },
  'booking.quote.not_found': { status: 404, description: 'POST /bookings: no such quote for this partner and environment.' },
  'booking.quote.expired': { status: 409, description: 'POST /bookings: the quote is past expires_at; take a new quote.' },
  'booking.quote.already_booked': { status: 409, description: 'POST /bookings: the quote was already used by a booking.' },
  'booking.partner_reference.duplicate': { status: 409, description: 'POST /bookings: partner_reference already used in this environment.' },
  'booking.travelers.mismatch': {
    status: 422,
    description: 'POST /bookings: the travelers do not match the quote (count: `details.travelers_quoted`, `details.travelers_named`).',
  },
  'booking.slot.unavailable': {
    status: 422,
    description:
      'POST /bookings: re-validated at confirmation, the slot is no longer bookable (`details.reason`: sold_out, slot_closed, sales_closed, adventure_withdrawn, ...).',
  },
  'booking.slot.contended': {
    status: 409,
    description: 'Too many concurrent changes on this slot or booking; nothing was written: retry shortly (Retry-After) with the same Idempotency-Key.',
    transient: true,
  },
  'booking.not_cancellable': { status: 409, description: 'The booking is CANCELLED or COMPLETED.' },
  'booking.not_completable': { status: 409, description: 'Test helper: only a CONFIRMED booking can be completed.' },
  'settlement.not_issued': { status: 409, description: 'A DRAFT settlement has no number, invoice or statement until it is issued.' },
  'settlement.documents.pending': {
    status: 409,
    description: 'The settlement was just issued and its documents are being stored; retry shortly (Retry-After).',
  },
  'settlement.transition.invalid': { status: 409, description: 'Only an ISSUED settlement can become PAID; DRAFT and PAID settlements refuse it.' },
  'settlement.amount.mismatch': { status: 422, description: 'The amount received differs from the total due of the settlement.' },
  'settlement.period.not_closable': {
    status: 422,
    description: 'Test helper: the period to close is after the latest closable one (the running month, or a later month that holds a DRAFT).',
  },
  'payment.confirmation.malformed': { status: 400, description: 'payment_confirmation is not a compact ES256 JWS with a kid and the required claims.' },
  'payment.key.unknown': { status: 422, description: 'The JWS kid is not a payment key registered for this partner and environment.' },
  'payment.signature.invalid': { status: 422, description: 'The JWS signature does not verify with the registered key.' },
  'payment.quote.mismatch': { status: 422, description: 'The confirmation was signed for another quote_id.' },
  'payment.amount.mismatch': { status: 422, description: "The confirmed amount differs from the quote's net_amount." },
  'webhook.url.refused': { status: 422, description: 'The webhook URL is not HTTPS, does not resolve, or resolves to a private or reserved address.' },
  'webhook.endpoint.limit': { status: 422, description: 'At most 16 webhook endpoints per environment.' },
  'webhook.endpoint.disabled': {
    status: 409,
    description: 'POST /webhooks/{id}/recover on a DISABLED endpoint without "enable": true: nothing would reach it.',
  },
  'webhook.endpoint.deleted': {
    status: 409,
    description: 'POST /webhooks/deliveries/{id}/replay of a delivery whose endpoint was deleted: nothing would receive it (`details.id`: the endpoint).',
  },
  'webhook.secret.rotation_open': {
    status: 409,
    description:
      'POST /webhooks/{id}/rotate-secret while the previous rotation still signs with the older secret: wait for `details.previous_secret_expires_at`, or rotate with overlap_seconds 0.',
  },
  'webhook.secret.rotation_conflict': {
    status: 409,
    description:
      'POST /webhooks/{id}/rotate-secret lost to other rotations of the same endpoint at the same moment; nothing was changed: retry shortly (Retry-After) with the same Idempotency-Key.',
    transient: true,
  },
  'webhook.send.budget_exceeded': {
    status: 429,
    description:
      'A replay or a test send beyond the budget of manual sends a minute, to one endpoint or to all the endpoints of the environment (`details.scope`, `details.limit_per_minute`); nothing was sent: retry after Retry-After.',
    transient: true,
  },
  'clock.advance.backwards': {
    status: 422,
    description: "POST /test-helpers/clock/advance: `to` is not after the sandbox clock's `now`; the clock only moves forward (`details.now`).",
  },
  'clock.advance.too_far': {
    status: 422,
    description: "POST /test-helpers/clock/advance: `to` is more than 90 days after the clock's `now` (`details.latest_to`); advance in steps.",
  },
  'clock.advancing': {
    status: 409,
    description: 'POST /test-helpers/clock/advance: an advance to another time is still playing; wait until GET /test-helpers/clock says ready.',
    transient: true,
  },
  'review.booking.not_found': { status: 404, description: 'POST /reviews: no such booking for this partner and environment.' },
  'review.booking.not_completed': {
    status: 409,
    description: 'POST /reviews: the booking is not COMPLETED (`details.status`); only travelled bookings are reviewed.',
  },
  'review.reviewable.mismatch': {
    status: 422,
    description: "POST /reviews: reviewable_type is not the booked adventure's kind (EXPERIENCE or TRIP), or reviewable_id is not the booking's.",
  },
  'review.already_exists': { status: 409, description: 'POST /reviews: the booking already has a review of this reviewable (deleted ones included).' },
  'review.photo.not_found': { status: 422, description: 'photo_ids: a file that does not exist for you in this environment (`details.file_id`).' },
  'review.photo.wrong_purpose': { status: 422, description: 'photo_ids: a file uploaded for another purpose (`details.file_id`).' },
  'review.photo.not_ready': {
    status: 409,
    description: 'photo_ids: a file still PENDING_UPLOAD or REJECTED (`details.file_id`, `details.status`, `details.rejection_reason`).',
  },
  'review.photo.in_use': { status: 409, description: 'photo_ids: a file attached to another review (`details.file_id`).' },
  'review.moderation.invalid': {
    status: 409,
    description: 'Moderation: the action does not apply to the review in its state (restore a visible one, hide a hidden one).',
  },
  'review.write.conflict': {
    status: 409,
    description: 'Too many concurrent changes to the same review or rating; nothing was written: retry shortly (Retry-After) with the same Idempotency-Key.',
    transient: true,
  },
  'internal.error': {
    status: 500,
    description: 'Unexpected failure; retry later with the same Idempotency-Key, and quote the request id if it persists.',
  },
} as const satisfies Record<string, { status: number; description: string; transient?: true }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * An error that says "nothing was written, the same request may succeed later":
 * contention (`transient: true` above: a transaction cancelled by concurrent ones,
 * a key still being processed, the rate limit) and any 5xx (an internal error,
 * DynamoDB throttling surfaced as one). A write that failed so before committing is
 * not stored under its Idempotency-Key, so a retry with that key runs it again
 * (runIdempotent); every other refusal of an operation that ran is its final answer.
 */
export function isTransient(err: { code: string; status: number }): boolean {
  if (err.status >= 500) return true;
  const entry = ERROR_CODES[err.code as ErrorCode] as { transient?: true } | undefined;
  return entry?.transient === true;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetailsInput;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: ErrorDetailsInput, headers?: Record<string, string>) {
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
