import { describe, expect, it } from 'vitest';
import { clockView } from '../../shared/clock/views';
import { recordEvent } from '../../shared/events/record';
import { horizonDate } from '../../shared/http/bounds';
import { clockLeadMs, clockMs, tenantNow, withClockLead } from '../../shared/kernel/clock';
import { addDays, localDate, localToInstant } from '../../shared/kernel/time';
import { newDelivery } from '../../shared/webhooks/deliveries';
import { webhookStore } from '../../shared/webhooks/store';

// The items below are built, never sent: the table names only fill them in.
process.env.DATA_TABLE = 'data';
process.env.ACCESS_TABLE = 'access';

const REAL = Date.parse('2026-11-26T09:00:00Z');
const DAY = 86_400_000;

describe('the sandbox clock', () => {
  it('runs with real time, ahead by its offset, and stands at the instant an advance plays', () => {
    expect(clockMs(undefined, REAL)).toBe(REAL);
    expect(clockMs({ status: 'ready', offset_ms: DAY }, REAL)).toBe(REAL + DAY);
    expect(clockMs({ status: 'advancing', offset_ms: 0, frozen_at: '2026-12-01T00:00:00.000Z' }, REAL)).toBe(Date.parse('2026-12-01T00:00:00Z'));
    // An advance that stalled never holds the clock behind where it ran before.
    expect(clockMs({ status: 'advancing', offset_ms: DAY, frozen_at: '2026-11-20T00:00:00.000Z' }, REAL)).toBe(REAL + DAY);
  });

  it('shows its time, its lead in whole seconds and where an advance stops', () => {
    expect(clockView(undefined, REAL)).toEqual({
      now: '2026-11-26T09:00:00.000Z',
      status: 'ready',
      advanced_by_seconds: 0,
      advancing_to: null,
      // The service's own month boundary, 00:00 Morocco time on the 1st.
      next_month_starts_at: localToInstant('2026-12-01').toISOString(),
    });
    expect(clockView({ partner_id: 'p', status: 'ready', offset_ms: 1_860_500, updated_at: '' }, REAL)).toMatchObject({
      now: '2026-11-26T09:31:00.500Z',
      advanced_by_seconds: 1860,
    });
    expect(
      clockView(
        { partner_id: 'p', status: 'advancing', offset_ms: 0, frozen_at: '2026-11-26T10:00:00.000Z', advancing_to: '2026-12-02T00:00:00.000Z', updated_at: '' },
        REAL,
      ),
    ).toMatchObject({ now: '2026-11-26T10:00:00.000Z', status: 'advancing', advanced_by_seconds: 3600, advancing_to: '2026-12-02T00:00:00.000Z' });
  });

  it("is the tenant's time: live and an unmoved sandbox read real time", () => {
    const real = Date.now();
    expect(Math.abs(tenantNow({}).getTime() - real)).toBeLessThan(1_000);
    expect(Math.abs(tenantNow({ clockOffsetMs: 90 * DAY }).getTime() - (real + 90 * DAY))).toBeLessThan(1_000);
  });

  it("judges the booking horizon of a request's input on its clock", () => {
    const today = localDate(new Date());
    expect(horizonDate()).toBe(addDays(today, 365));
    expect(withClockLead(400 * DAY, () => horizonDate())).toBe(addDays(localDate(new Date(Date.now() + 400 * DAY)), 365));
    expect(withClockLead(5, () => clockLeadMs())).toBe(5);
    expect(clockLeadMs()).toBe(0);
  });
});

describe("the sweeper's real-time index, for a sandbox clock ahead of it", () => {
  it("keys a new event and a new delivery at real now, their own times staying the clock's", () => {
    const ahead = new Date(Date.now() + 30 * DAY);
    const before = new Date().toISOString();
    const recorded = recordEvent('p1', 'test', 'booking.completed', {} as never, ahead);
    const after = new Date().toISOString();
    expect(recorded.event.created_at).toBe(ahead.toISOString());
    const eventItem = recorded.item.Put!.Item as { gsi1sk: string };
    expect(eventItem.gsi1sk >= before && eventItem.gsi1sk <= `${after}~`).toBe(true);

    const d = newDelivery(recorded.event, recorded.ref, { partner_id: 'p1', env: 'test', id: 'e1', url: 'https://example.com' }, ahead);
    expect(d.next_attempt_at).toBe(ahead.toISOString());
    const deliveryItem = webhookStore.putDelivery(d).Put!.Item as { gsi2sk: string };
    expect(deliveryItem.gsi2sk >= before && deliveryItem.gsi2sk.slice(0, 24) <= new Date().toISOString()).toBe(true);
  });
});
