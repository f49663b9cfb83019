import type { EventRef, EventType } from '../events/types';
import type { Env } from '../kernel/tenant';

export interface EndpointRecord {
  id: string;
  partner_id: string;
  env: Env;
  url: string;
  event_types: string[];
  status: 'ACTIVE' | 'DISABLED';
  description: string | null;
  signing_secret: string;
  last_http_status: number | null;
  last_delivery_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface DeliveryRecord {
  id: string;
  partner_id: string;
  env: Env;
  event_id: string;
  event_type: EventType;
  event_ref: EventRef;
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
  test: boolean;
  created_at: string;
  updated_at: string;
  claimed_attempt?: number;
  claim_until?: number;
}

/** The webhook queue's messages: fan out one recorded event, or run one attempt of a delivery. */
export type Message = { kind: 'fanout'; pk: string; sk: string } | { kind: 'attempt'; delivery_id: string; attempt: number };
