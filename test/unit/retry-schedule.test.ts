import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_WAITS_SECONDS, retryDelayMs } from '../../shared/webhooks/schedule';
import { WebhookDelivery } from '../../shared/webhooks/schemas';

describe('webhook retry schedule', () => {
  it('waits 5 min, 15 min, 1 h, 6 h and 24 h after the failed attempts, then stops (6 attempts)', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n))).toEqual([300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, undefined]);
    expect(MAX_ATTEMPTS).toBe(6);
  });
  it('scales every wait by the same factor locally, keeping the shape', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 0.001))).toEqual([300, 900, 3600, 21_600, 86_400]);
  });
  it("states once how the spec's 'up to 5 attempts' with 5 waits is read: 5 retries, 6 attempts, in the guide and the document", () => {
    expect(RETRY_WAITS_SECONDS).toHaveLength(5);
    const described = WebhookDelivery.shape.attempts.description ?? '';
    expect(described).toContain(`at most ${MAX_ATTEMPTS}, the first and ${RETRY_WAITS_SECONDS.length} retries`);
    const guide = readFileSync(new URL('../../docs/guides/webhooks.md', import.meta.url), 'utf8');
    expect(guide).toContain(`${MAX_ATTEMPTS} attempts in\nall`);
    expect(guide).toContain('five *retries* after the first attempt failed');
  });
});
