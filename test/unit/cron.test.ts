import { describe, expect, it } from 'vitest';
import { parseAt } from '../../infra/local/scheduler';
import { parseCron } from '../../shared/kernel/cron';

describe('EventBridge cron (local runner)', () => {
  it('matches Sunday 03:00 UTC and nothing else that week', () => {
    const c = parseCron('cron(0 3 ? * SUN *)');
    expect(c.matches(new Date('2026-11-22T03:00:00Z'))).toBe(true); // a Sunday
    expect(c.matches(new Date('2026-11-22T03:01:00Z'))).toBe(false);
    expect(c.matches(new Date('2026-11-23T03:00:00Z'))).toBe(false);
  });
  it('supports lists, ranges and steps', () => {
    const c = parseCron('cron(0/15 8-10 1,15 * ? *)');
    expect(c.matches(new Date('2026-11-15T09:45:00Z'))).toBe(true);
    expect(c.matches(new Date('2026-11-15T11:00:00Z'))).toBe(false);
    expect(c.matches(new Date('2026-11-16T09:45:00Z'))).toBe(false);
  });
  it('refuses malformed expressions', () => {
    expect(() => parseCron('0 3 * * *')).toThrow();
    expect(() => parseCron('cron(61 3 ? * SUN *)')).toThrow();
  });
});

describe('Scheduler at() expressions (local emulation)', () => {
  it('parses UTC one-time schedules', () => {
    expect(parseAt('at(2026-11-21T10:00:00)')).toBe(Date.parse('2026-11-21T10:00:00Z'));
    expect(parseAt('rate(5 minutes)')).toBeUndefined();
    expect(parseAt('at(2026-11-21T10:00:00)', 'Europe/Paris')).toBeUndefined();
  });
});
