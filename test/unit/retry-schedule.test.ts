import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelayMs } from '../../shared/webhooks/schedule';

describe('webhook retry schedule', () => {
  it('waits 5 min, 15 min, 1 h, 6 h and 24 h after the failed attempts, then stops (6 attempts)', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n))).toEqual([300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, undefined]);
    expect(MAX_ATTEMPTS).toBe(6);
  });
  it('scales every wait by the same factor locally, keeping the shape', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 0.001))).toEqual([300, 900, 3600, 21_600, 86_400]);
  });
});
