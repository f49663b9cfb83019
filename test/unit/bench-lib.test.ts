import { describe, expect, it } from 'vitest';
import { measureInterleaved } from '../../bench/lib';

describe('bench: interleaved scenarios', () => {
  it('warms each scenario up, then runs the i-th request of each in turn, and times each scenario apart', async () => {
    const calls: string[] = [];
    const scenario = (name: string, ms: number) => ({
      name,
      fn: async (i: number) => {
        calls.push(`${name}${i}`);
        await new Promise((r) => setTimeout(r, ms));
      },
    });
    const [a, b] = await measureInterleaved([scenario('a', 0), scenario('b', 15)], 3, 2);
    expect(calls).toEqual(['a-1', 'a-2', 'b-1', 'b-2', 'a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    expect([a!.name, a!.n, b!.name, b!.n]).toEqual(['a', 3, 'b', 3]);
    expect(b!.p50).toBeGreaterThan(a!.p50);
    expect(b!.p50).toBeGreaterThanOrEqual(10);
  });
});
