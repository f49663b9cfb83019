import type { EventEnvelope, EventRef, EventType } from '../events/types';
import type { Env } from '../kernel/tenant';

/**
 * The manual sends (replays and test sends) a partner may make in a minute, per environment: to one endpoint,
 * and to all of its endpoints together (shared/webhooks/send-budget.ts). Each is a signed POST to a URL the
 * partner chose, so they are kept far below a key's 600 requests a minute: the service cannot be made to flood
 * a URL, whatever the keys or endpoints.
 */
export const MANUAL_SENDS_PER_MINUTE = { endpoint: 20, environment: 60 } as const;

export interface EndpointRecord {
  id: string;
  partner_id: string;
  env: Env;
  url: string;
  event_types: string[];
  status: 'ACTIVE' | 'DISABLED';
  description: string | null;
  signing_secret: string;
  /** The secret before the last rotation: deliveries are signed with it too until `previous_secret_expires_at`. */
  previous_signing_secret?: string | null;
  previous_secret_expires_at?: string | null;
  last_http_status: number | null;
  last_delivery_at: string | null;
  /** What went wrong in the last attempt (`HTTP 503`, `timeout after 10000 ms`), null when it succeeded; absent before it was kept. */
  last_error?: string | null;
  /** When the last attempt's outcome was recorded: orders concurrent answers. */
  last_outcome_at?: string;
  /** Start of the current run of failed attempts (absent once one succeeds): what auto-disable measures. */
  failing_since?: string | null;
  /** When the team was warned of the current run of failures. */
  failure_warned_at?: string | null;
  /** Why a DISABLED endpoint is: `failing` (auto-disabled) or `manual` (PATCH). */
  disabled_reason?: 'failing' | 'manual' | null;
  disabled_at?: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/**
 * One attempt of a delivery, recorded on it when the attempt is claimed (its
 * id is the X-Service-Delivery-Id the receiver sees) and completed once the
 * receiver answered. `result` stays null while the attempt is in flight, and
 * for good if the worker died after sending (the attempt is then re-driven
 * under a new id).
 */
export interface AttemptRecord {
  id: string;
  number: number;
  attempted_at: string;
  http_status: number | null;
  response_time_ms: number | null;
  error: string | null;
  result: 'SUCCEEDED' | 'FAILED' | null;
  /** What the receiver answered; null when nothing did, absent on attempts recorded before it was kept. */
  response?: ReceiverAnswer | null;
}

/** What a receiver answered, as kept on the attempt: its headers (lower-cased names) and the first KB of its body. */
export interface ReceiverAnswer {
  headers: Record<string, string>;
  /** The first KB of the body, decoded as UTF-8 (a character cut at the end is dropped). */
  body: string;
  /** The body was longer than what is kept (or the read stopped before its end). */
  body_truncated: boolean;
}

export interface DeliveryRecord {
  id: string;
  partner_id: string;
  env: Env;
  event_id: string;
  event_type: EventType;
  event_ref: EventRef;
  /** The event as it is sent, never changed: absent on deliveries recorded before it was carried (read through event_ref). */
  event?: EventEnvelope;
  endpoint_id: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  dead_lettered_at: string | null;
  replay_of: string | null;
  /** The delivery a recover re-sent this FAILED one as (set once, conditionally: each failure is recovered once). */
  recovered_by?: string;
  test: boolean;
  /** A POST /webhooks/{id}/test send: attempted once, never retried. */
  test_send?: boolean;
  /** Every attempt claimed so far, oldest first (absent on deliveries recorded before attempts were kept). */
  attempt_log?: AttemptRecord[];
  last_attempt_id?: string | null;
  created_at: string;
  updated_at: string;
  claimed_attempt?: number;
  claim_until?: number;
  /** When the live claim was taken (epoch ms): a restart drops only the claims taken before it. */
  claimed_at?: number;
  /** The attempt id of the live claim: only its holder records the outcome. */
  claim_id?: string;
  /**
   * The claim (attempt id) during which a recover asked for the next attempt at once: if that attempt fails,
   * its next is due now instead of after its wait (a final one's event is re-sent as a recover would).
   */
  redrive_claim?: string;
}

/** The webhook queue's messages: fan out one recorded event, or run one attempt of a delivery. */
export type Message = ({ kind: 'fanout' } & FanOutRequest) | { kind: 'attempt'; delivery_id: string; attempt: number };

/**
 * An event to fan out: where it is recorded and, when the sender had it at
 * hand (right after its transaction), the event itself, so the fan-out reads
 * nothing. Its dispatched mark is still conditional on the record.
 */
export type FanOutRequest = EventRef & { partner_id?: string; env?: Env; event?: EventEnvelope };
