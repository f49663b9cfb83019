/**
 * Jittered exponential backoff ("full jitter"): a random wait in
 * [0, min(cap, base * 2^attempt)). The one backoff of the service, used by
 * every loop that retries a lost race or unprocessed batch items.
 */
export function backoffMs(attempt: number, baseMs = 10, capMs = 200): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const backoff = (attempt: number, baseMs?: number, capMs?: number) => sleep(backoffMs(attempt, baseMs, capMs));
