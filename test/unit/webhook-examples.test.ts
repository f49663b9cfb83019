import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { EVENT_PAYLOADS, UNAVAILABLE_REASONS } from '../../shared/events/payloads';
import { eventIdFor } from '../../shared/events/record';
import { EVENT_TYPES } from '../../shared/events/types';
import { exampleData } from '../../shared/webhooks/examples';

describe('event payloads and the test-send examples', () => {
  it('describe every event type, and nothing else', () => {
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('give each type an example with exactly the fields of the real payload', () => {
    for (const type of EVENT_TYPES) {
      const example = exampleData(type, new Date('2026-11-22T10:00:00Z'));
      const parsed = EVENT_PAYLOADS[type].safeParse(example);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      // Strict both ways: no field missing (parse) and no extra field (strict schema).
      expect(Object.keys(example).sort(), type).toEqual(Object.keys(EVENT_PAYLOADS[type].shape).sort());
    }
  });

  it('refuse a payload with a field the real event lacks or without one it has', () => {
    const good = exampleData('booking.confirmed');
    expect(EVENT_PAYLOADS['booking.confirmed'].safeParse({ ...good, synthetic: true }).success).toBe(false);
    const { quote_id: _, ...missing } = good;
    expect(EVENT_PAYLOADS['booking.confirmed'].safeParse(missing).success).toBe(false);
  });

  it("review.moderated carries exactly the specification's fields", () => {
    expect(Object.keys(EVENT_PAYLOADS['review.moderated'].shape).sort()).toEqual(
      ['review_id', 'reviewable_type', 'reviewable_id', 'booking_id', 'booking_number', 'partner_reference', 'action', 'moderated_at'].sort(),
    );
  });

  it('adventure.unavailable names its reasons', () => {
    expect(UNAVAILABLE_REASONS).toEqual(['WITHDRAWN', 'SLOT_CLOSED', 'RATE_PACK_REMOVED', 'SOLD_OUT', 'SANDBOX_REFRESH']);
  });
});

describe('deterministic event ids (announcements)', () => {
  it('are UUIDs, the same for the same parts and different otherwise', () => {
    const a = eventIdFor('adventure.unavailable', 'SOLD_OUT', 'LIVE', 'x', 'gen-1', 'partner-1', 'live');
    expect(z.uuid().safeParse(a).success).toBe(true);
    expect(a[14]).toBe('8');
    expect(eventIdFor('adventure.unavailable', 'SOLD_OUT', 'LIVE', 'x', 'gen-1', 'partner-1', 'live')).toBe(a);
    expect(eventIdFor('adventure.unavailable', 'SOLD_OUT', 'LIVE', 'x', 'gen-2', 'partner-1', 'live')).not.toBe(a);
    expect(eventIdFor('adventure.unavailable', 'SOLD_OUT', 'LIVE', 'x', 'gen-1', 'partner-2', 'live')).not.toBe(a);
  });
});
