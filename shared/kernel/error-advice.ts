import type { ErrorCode } from './errors';

/**
 * What a partner engineer does about each error code, for the error catalogue
 * (docs/guides/errors.md, generated). Typed by ErrorCode: a code added to
 * ERROR_CODES without its advice does not compile.
 *
 * `retry` says whether sending again can succeed, and how:
 * - `fix`: not as it is; change the request (or the state it needs) first. A request
 *   refused before its operation ran stored nothing, so the corrected one may keep its
 *   Idempotency-Key; a refusal of an operation that ran (404, 409, 422 of a write) is
 *   stored under its key: the corrected request needs a new key.
 * - `wait`: yes, the same request after `Retry-After` (a write keeps its Idempotency-Key:
 *   contention and 5xx are not stored, see isTransient, so the retry runs it again).
 * - `no`: no; the outcome is final for this resource.
 */
export type Retry = 'fix' | 'wait' | 'no';

export interface ErrorAdvice {
  retry: Retry;
  /** Plain words for a partner engineer: what to check or do. */
  todo: string;
}

export const ERROR_ADVICE: Record<ErrorCode, ErrorAdvice> = {
  'request.route.not_found': {
    retry: 'fix',
    todo: 'Check the path against the API reference (it starts with /v1). Test helpers exist only for sandbox keys: with a live key they answer this. A trailing slash: a GET or HEAD is redirected (308) to the route; a write answers this, naming the route to sign and send to.',
  },
  'request.method.not_allowed': { retry: 'fix', todo: 'Use one of the methods the `Allow` header lists.' },
  'request.body.malformed_json': {
    retry: 'fix',
    todo: 'Send a JSON body encoded as UTF-8 without a byte order mark; check your serializer and any string concatenation.',
  },
  'request.body.invalid_utf8': { retry: 'fix', todo: 'Encode the body as UTF-8 (no Latin-1 or UTF-16).' },
  'request.body.duplicate_key': {
    retry: 'fix',
    todo: 'Send each key once per object: the key `details.field` names appears twice (check string-built or merged JSON).',
  },
  'request.body.too_deep': {
    retry: 'fix',
    todo: 'Send the body the operation documents: none nests more than three levels. Look at `details.position` for where the nesting runs away (a serializer that wraps an object in itself, string-built JSON).',
  },
  'request.malformed': { retry: 'fix', todo: 'Your HTTP client sent an invalid request; check any proxy or hand-written HTTP in between.' },
  'request.body.too_large': {
    retry: 'fix',
    todo: 'Bodies are at most 256 KB. Photos are never sent to the API: upload them with the presigned POST of `POST /files`.',
  },
  'validation.required.field': { retry: 'fix', todo: 'Add the fields `details.errors` names (each with `location` and `expected`).' },
  'validation.field.invalid': {
    retry: 'fix',
    todo: 'Correct each field `details.errors` names (its `expected` says what is accepted); remove fields the operation does not take.',
  },
  'validation.parameter.unknown': {
    retry: 'fix',
    todo: 'Remove or rename the query parameter; `details.errors` lists the ones the operation takes (a typo is refused, not ignored).',
  },
  'auth.api_key.missing': { retry: 'fix', todo: 'Send `Authorization: Bearer <key>` on every request but `/health` and `/openapi.json`.' },
  'auth.api_key.invalid': {
    retry: 'fix',
    todo: 'Check that the whole key is sent and that it is not revoked or expired (`GET /api-keys` in the console). A disabled member or partner also gets this: ask your admin or support.',
  },
  'auth.timestamp.skew': {
    retry: 'fix',
    todo: 'Sync your server clock (NTP); send `X-Timestamp` as Unix seconds of the moment you sign, and sign each attempt anew.',
  },
  'auth.signature.invalid': {
    retry: 'fix',
    todo: 'Compare `details.string_to_sign` (what the service signed, the body as its SHA-256) with the same string built from what you signed: the part that differs is the one changed on its way (or, if none, the secret). See authentication.md. Refusals you did not catch are in the live request log: `GET /request-logs?code=auth.signature.invalid` (request-logs.md).',
  },
  'auth.timestamp.missing': { retry: 'fix', todo: 'Live writes need `X-Timestamp` and `X-Signature`; see authentication.md.' },
  'auth.signature.replayed': {
    retry: 'fix',
    todo: 'Sign with `X-Signature-Version: 2`, which signs the Idempotency-Key and never collides; under version 1, sign each new request with a later `X-Timestamp`. A retry keeps its Idempotency-Key (then it gets the replay, not this).',
  },
  'auth.environment.live_required': {
    retry: 'fix',
    todo: 'Team changes reach production: make them with a live key (signed) or a live console session. A sign-out (POST /me/sign-out) with a key needs a live key too; the console signs out from either environment.',
  },
  'auth.session.invalid': { retry: 'fix', todo: 'Console: sign in again. The session expired, was signed out, or its member was disabled or removed.' },
  'auth.session.environment_required': { retry: 'fix', todo: 'Console sessions send `X-Environment: sandbox` or `X-Environment: live` with every request.' },
  'auth.session.reauthentication_required': {
    retry: 'fix',
    todo: 'Console: sign in again with password and code, then repeat the live change within 15 minutes.',
  },
  'auth.scope.insufficient': {
    retry: 'fix',
    todo: 'Use a key of a member whose role grants the scope `details` names, or ask your PARTNER_ADMIN to change the role.',
  },
  'rate_limit.exceeded': {
    retry: 'wait',
    todo: 'Wait `Retry-After` seconds, then send the same request. Spread requests over the minute; ask support for a higher limit if you need one.',
  },
  'idempotency.key.missing': { retry: 'fix', todo: 'Send an `Idempotency-Key` (a UUID v4 per operation) with every POST, PUT, PATCH and DELETE.' },
  'idempotency.key.invalid': { retry: 'fix', todo: 'Use a non-blank key of at most 255 characters.' },
  'idempotency.key.reused': {
    retry: 'fix',
    todo: 'One key, one operation: generate a new key for a new request. A retry must send the identical method, path and body.',
  },
  'idempotency.request.in_progress': {
    retry: 'wait',
    todo: 'The first request with this key is still running, or died: send the same request again after `Retry-After` (you get its answer, or your retry runs it).',
  },
  'pagination.limit.invalid': { retry: 'fix', todo: '`limit` is an integer from 1 to 100 (larger values are clamped).' },
  'pagination.cursor.invalid': {
    retry: 'fix',
    todo: 'Pass `meta.next_cursor` back unchanged, with the same filters and key environment; start again from the first page if it is lost.',
  },
  'pagination.cursor.wrong_endpoint': { retry: 'fix', todo: 'A cursor only works on the list that issued it.' },
  'team.role.self_change': { retry: 'no', todo: 'Another PARTNER_ADMIN changes your role.' },
  'team.key.other_admin': { retry: 'no', todo: 'A PARTNER_ADMIN issues their own keys (or the operators do).' },
  'team.role.last_admin': { retry: 'fix', todo: 'Promote another member to PARTNER_ADMIN first, then make the change.' },
  'team.member.self': { retry: 'no', todo: 'Another PARTNER_ADMIN disables or removes you.' },
  'team.member.exists': {
    retry: 'fix',
    todo: 'The address is already a member, a console user of another partner, or being invited now: check the team list, or use another address.',
  },
  'team.member.already_active': { retry: 'no', todo: 'The member has signed in: nothing to resend. A forgotten password goes through support.' },
  'team.member.disabled': { retry: 'fix', todo: 'Enable the member (`PATCH /team/members/{user_id}` with `{"enabled":true}`) first.' },
  'resource.not_found': {
    retry: 'fix',
    todo: 'Check the id, and that the key is of the right environment: sandbox and live data never mix, and ids of another partner answer this too.',
  },
  'quote.rate_pack.not_found': {
    retry: 'fix',
    todo: "Take `rate_pack_id` from the adventure's `rate_packs` (`GET /adventures/{slug}`) in the same environment.",
  },
  'quote.start_date.in_past': { retry: 'fix', todo: 'Quote a date from today on, in Morocco time (Africa/Casablanca).' },
  'quote.start_time.invalid': {
    retry: 'fix',
    todo: 'Use a `start_time` of the availability for SCHEDULED packs, and `null` for FLEXIBLE packs.',
  },
  'quote.slot.not_sellable': {
    retry: 'fix',
    todo: 'Pick another slot from `GET /adventures/{slug}/availability`; `details.reason` says why this one is not sold.',
  },
  'quote.party.too_large': { retry: 'fix', todo: "Split the party, or pick a pack whose traveler limits fit (see the pack's limits)." },
  'quote.party.too_small': { retry: 'fix', todo: "Add travelers up to the pack's minimum, or pick another pack." },
  'quote.traveler.age_out_of_range': { retry: 'fix', todo: "Check the ages (or birth dates) `details.travelers` names against the pack's age brackets." },
  'quote.capacity.insufficient': { retry: 'fix', todo: 'Pick another slot: `details.remaining` places are left.' },
  'booking.quote.not_found': { retry: 'fix', todo: 'Use the `id` of a quote created with a key of the same environment.' },
  'booking.quote.expired': {
    retry: 'fix',
    todo: 'Quotes hold 30 minutes: create a new quote and book it (a new payment confirmation for it, and a new Idempotency-Key).',
  },
  'booking.quote.already_booked': {
    retry: 'no',
    todo: 'The quote made a booking already: find it with `GET /bookings`. If that booking is your own lost answer, a retry with its original Idempotency-Key returns it.',
  },
  'booking.partner_reference.duplicate': {
    retry: 'fix',
    todo: 'The reference names a booking already: look it up; use a new `partner_reference` for a new booking.',
  },
  'booking.travelers.mismatch': { retry: 'fix', todo: 'Name one traveler per traveler of the quote, in the same order.' },
  'booking.slot.unavailable': {
    retry: 'fix',
    todo: 'The slot went (`details.reason`): quote another slot and book that; refund your customer if you charged them.',
  },
  'booking.slot.contended': {
    retry: 'wait',
    todo: 'Nothing was booked or cancelled. Wait `Retry-After`, then send the same request with the same Idempotency-Key: it runs again.',
  },
  'booking.not_cancellable': {
    retry: 'no',
    todo: 'The booking is CANCELLED or COMPLETED, or its adventure has started: read it with `GET /bookings/{booking_number}`.',
  },
  'booking.not_completable': { retry: 'no', todo: 'Sandbox: only a CONFIRMED booking completes.' },
  'settlement.not_issued': { retry: 'wait', todo: 'A DRAFT has no documents: fetch them after `settlement.issued` arrives (the 1st of the next month).' },
  'settlement.documents.pending': { retry: 'wait', todo: 'The documents are being stored: fetch again after `Retry-After` seconds.' },
  'settlement.transition.invalid': { retry: 'no', todo: 'Only an ISSUED settlement is paid; read its `status`.' },
  'settlement.amount.mismatch': { retry: 'fix', todo: "Pay exactly the settlement's `total_due`." },
  'settlement.period.not_closable': { retry: 'fix', todo: 'Sandbox: run a period up to `details.latest_closable_period`, or omit `period`.' },
  'payment.confirmation.malformed': {
    retry: 'fix',
    todo: 'Send a compact ES256 JWS with `kid` in its header and the claims quote_id, amount, payment_reference and paid_at (within 24 hours, not ahead of time); `details.errors` names what is wrong.',
  },
  'payment.key.unknown': {
    retry: 'fix',
    todo: 'Sign with a payment key registered for this environment (sandbox and live have their own), and put its `kid` in the header.',
  },
  'payment.signature.invalid': { retry: 'fix', todo: 'Sign with the private half of the registered key, over the exact claims you send.' },
  'payment.quote.mismatch': { retry: 'fix', todo: 'Sign a confirmation for this quote: its `quote_id` claim must be the booked quote.' },
  'payment.amount.mismatch': { retry: 'fix', todo: "Sign the quote's `net_amount` exactly (amount and currency)." },
  'webhook.url.refused': { retry: 'fix', todo: 'Register an HTTPS URL whose host resolves to public addresses only.' },
  'webhook.endpoint.limit': { retry: 'fix', todo: 'Delete an endpoint you no longer use, or subscribe one endpoint to several event types.' },
  'webhook.endpoint.disabled': { retry: 'fix', todo: 'Send `"enable": true` with the recover call, once your receiver answers again.' },
  'webhook.endpoint.deleted': {
    retry: 'no',
    todo: 'The endpoint is gone: register the receiver again (POST /webhooks) and read what it missed with GET /events, the source of truth.',
  },
  'webhook.secret.rotation_open': {
    retry: 'fix',
    todo: 'Wait until `details.previous_secret_expires_at`, or rotate with `overlap_seconds: 0` to revoke every older secret at once (after a leak).',
  },
  'webhook.secret.rotation_conflict': {
    retry: 'wait',
    todo: 'Nothing was changed. Wait `Retry-After`, then send the same request with the same Idempotency-Key: it runs again (one system should rotate a secret, not several at once).',
  },
  'webhook.send.budget_exceeded': {
    retry: 'wait',
    todo: 'Nothing was sent. Wait `Retry-After` seconds, then send the same request (same Idempotency-Key). To re-send many failed deliveries, use POST /webhooks/{id}/recover: one call, each event once.',
  },
  'clock.advance.backwards': {
    retry: 'fix',
    todo: "Read the clock (GET /test-helpers/clock) and advance to a time after its `now`. To start again from real time, use another partner's sandbox: a clock never goes back.",
  },
  'clock.advance.too_far': { retry: 'fix', todo: 'Advance at most 90 days at a time: advance to `details.latest_to`, then again.' },
  'clock.advancing': {
    retry: 'wait',
    todo: 'Wait until GET /test-helpers/clock answers `status: ready` (every due change and webhook of the advance is recorded then), then advance again.',
  },
  'review.booking.not_found': { retry: 'fix', todo: 'Review one of your bookings, with a key of its environment.' },
  'review.booking.not_completed': {
    retry: 'fix',
    todo: 'Post the review (a new request, a new Idempotency-Key) once the booking is COMPLETED: `booking.completed` arrives after the travel date.',
  },
  'review.reviewable.mismatch': {
    retry: 'fix',
    todo: "Use the `reviewable_type` of the booked adventure's kind (or AGENCY), and omit `reviewable_id` or send the booking's.",
  },
  'review.already_exists': { retry: 'no', todo: 'Edit the existing review with `PUT /reviews/{id}` instead.' },
  'review.photo.not_found': { retry: 'fix', todo: 'Use the id of a file you uploaded with `POST /files` in this environment.' },
  'review.photo.wrong_purpose': { retry: 'fix', todo: 'Attach only files created with `purpose: "review_photo"`.' },
  'review.photo.not_ready': {
    retry: 'fix',
    todo: 'Wait until `GET /files/{id}` answers READY; a REJECTED file (`rejection_reason`) is uploaded again as a new file.',
  },
  'review.photo.in_use': { retry: 'fix', todo: 'A photo belongs to one review: upload it again as a new file.' },
  'review.moderation.invalid': { retry: 'no', todo: 'Sandbox: the review is already in that state (or deleted).' },
  'review.write.conflict': {
    retry: 'wait',
    todo: 'Nothing was written. Wait `Retry-After`, then send the same request with the same Idempotency-Key: it runs again.',
  },
  'internal.error': {
    retry: 'wait',
    todo: 'Send the same request again with the same Idempotency-Key: a write that did not commit runs again, one that did returns its answer. Inviting a member, resending an invitation and a webhook test send keep this answer: read the resource, then use a new key. If it persists, contact support with the `request_id`.',
  },
};
