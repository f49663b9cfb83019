export const EVENT_TYPES = [
  'booking.confirmed',
  'booking.cancelled',
  'booking.completed',
  'settlement.issued',
  'settlement.paid',
  'review.moderated',
  'adventure.unavailable',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a webhook endpoint receives: the envelope of the spec, in this field order. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  test: boolean;
  data: Record<string, unknown>;
}

/** The envelope in the spec's field order, as deliveries carry it and GET /events answers it (a DynamoDB map keeps no order). */
export const inEnvelopeOrder = (e: EventEnvelope): EventEnvelope => ({ id: e.id, type: e.type, created_at: e.created_at, test: e.test, data: e.data });

/** Where a recorded event lives (its table key): deliveries point back to it. */
export type EventRef = { pk: string; sk: string };
