import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeBinaries } from './node-binaries';

/**
 * Every date the service computes is the same on every runtime, whatever its
 * time-zone data: the date functions run under each Node.js of the machine
 * (Node 20 ships tz 2025c, the project's Node 22 2026c, which disagree on
 * Morocco from 2026-09-20) and their outputs are compared.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const ENV = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
/** The IANA release moment-timezone ships (the source of the bundled rules). */
const IANA = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('moment-timezone/data/packed/latest.json'), 'utf8')) as { version: string })
  .version;

function datesUnder(node: string): { node: string; tz: string; out: Record<string, unknown> } {
  return JSON.parse(execFileSync(node, ['--import', 'tsx', 'test/fixtures/tz-dates.ts'], { cwd: ROOT, env: ENV, encoding: 'utf8', maxBuffer: 64 << 20 }));
}

type Run = { major: number; path: string } & ReturnType<typeof datesUnder>;

describe('dates on every runtime', () => {
  const binaries = nodeBinaries();
  let runs: [Run, Run];
  beforeAll(() => {
    runs = [20, 22].map((major) => {
      const b = binaries.get(major);
      if (!b) throw new Error(`no Node.js ${major} on this machine (found ${[...binaries.keys()].join(', ')}): the test compares Node 20 and Node 22`);
      return { major, path: b.path, ...datesUnder(b.path) };
    }) as [Run, Run];
  }, 120_000);

  it('local dates, slot instants, the booking window, completions and settlement months are identical under Node 20 and Node 22', () => {
    const [a, b] = runs;
    // What the test is about: two runtimes whose tz data differ.
    expect(a.tz).not.toBe(b.tz);
    expect(Object.keys(a.out).length).toBeGreaterThan(1000);
    const differing = Object.keys(a.out).filter((k) => JSON.stringify(a.out[k]) !== JSON.stringify(b.out[k]));
    const shown = differing
      .slice(0, 5)
      .map((k) => `${k}: ${a.node} (tz ${a.tz}) ${JSON.stringify(a.out[k])}, ${b.node} (tz ${b.tz}) ${JSON.stringify(b.out[k])}`);
    expect(shown, `${differing.length} of ${Object.keys(a.out).length} outputs differ`).toEqual([]);
    expect(Object.keys(b.out)).toEqual(Object.keys(a.out));
  });

  it(`Morocco is at UTC+00:00 on 2026-11-15 on every runtime, as IANA ${IANA} (moment-timezone) has it`, () => {
    for (const r of runs) {
      const at = `${r.node} (tz ${r.tz})`;
      expect(r.out['localToInstant 2026-11-15 09:00'], at).toBe('2026-11-15T09:00:00.000Z');
      expect(r.out['localDate 2026-11-15T23:30:00.000Z'], at).toBe('2026-11-15');
      expect(r.out['completion of 2026-11-14'], at).toBe('2026-11-15T00:00:00.000Z');
      expect(r.out['month end of 2026-11'], at).toBe('2026-12-01T00:00:00.000Z');
    }
  });
});
