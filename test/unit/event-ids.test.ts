import { describe, expect, it } from 'vitest';
import { createdAtOfEventId, eventIdFor, newEventId } from '../../shared/events/record';

describe('event ids', () => {
  it('are UUID version 7 carrying their created_at to the millisecond', () => {
    for (const at of [new Date('2026-11-24T07:30:00.123Z'), new Date('2000-01-01T00:00:00.000Z'), new Date()]) {
      const id = newEventId(at);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(createdAtOfEventId(id)).toBe(at.toISOString());
    }
    const at = new Date();
    expect(new Set(Array.from({ length: 1000 }, () => newEventId(at))).size).toBe(1000);
  });

  it('say nothing about the time of ids of other versions', () => {
    expect(createdAtOfEventId(eventIdFor('adventure.unavailable', 'x'))).toBeUndefined();
    expect(createdAtOfEventId('9f1c2d3e-0000-4000-8000-000000000001')).toBeUndefined();
  });
});
