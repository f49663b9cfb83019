import { describe, expect, it } from 'vitest';
import { againstOthers, distinctWhitespace, measureInterleaved, type Stats } from '../../bench/lib';

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

describe('bench: one scenario against others of the same run', () => {
  const row = (name: string, p50: number): Stats => ({ name, n: 1, p50, p99: p50, mean: p50 });

  it("divides the scenario's p50 by the mean p50 of the others, run by run, and takes the median", () => {
    const runs = [
      [row('a', 10), row('b', 12), row('d', 11)],
      [row('a', 20), row('b', 20), row('d', 30)],
      [row('a', 8), row('b', 8), row('d', 8)],
    ];
    const r = againstOthers(runs, 'd', ['a', 'b']);
    expect(r.perRun).toEqual([1, 1.5, 1]);
    expect(r.median).toBe(1);
  });

  it('names a missing scenario instead of dividing by NaN', () => {
    expect(() => againstOthers([[row('a', 1)]], 'd', ['a'])).toThrow('no scenario named d');
  });
});

describe('bench: signed bodies never repeat', () => {
  it('appends JSON whitespace that differs for every request, so a body parses the same and signs differently', () => {
    const body = '{"role":"VIEWER"}';
    const bodies = Array.from({ length: 100_000 }, (_, n) => body + distinctWhitespace(n));
    expect(new Set(bodies).size).toBe(bodies.length);
    for (const b of [bodies[0]!, bodies[63]!, bodies[64]!, bodies[99_999]!]) {
      expect(JSON.parse(b)).toEqual({ role: 'VIEWER' });
      expect(b.slice(body.length)).toMatch(/^[ \t\n\r]+$/);
    }
  });
});
