import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { slotsBetween } from '../shared/catalog/slots';
import { addDays, localDate, localToInstant } from '../shared/kernel/time';

/**
 * node --import tsx bench/time.ts [--runs N]
 *
 * Morocco's time on the hot paths (catalog slots, quotes): ns per call of the
 * date functions, median of N rounds of 200 000 calls after a warm-up; and
 * the runtime check of the time-zone data (shared/kernel/tz-check.ts) as a
 * process meets it, first in a fresh process (the Intl formatter, then the
 * comparison), median of N processes.
 */
const ROOT = join(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const base = Date.UTC(2026, 10, 1);
const dates = Array.from({ length: 400 }, (_, i) => addDays('2026-11-01', i));
const pack = { booking_mode: 'SCHEDULED' as const, schedule: { weekdays: [1, 2, 3, 4, 5, 6, 7], start_times: ['09:00', '14:00'], capacity_per_departure: 12 } };
const now = new Date('2026-11-25T10:00:00Z');

function nsPerCall(fn: (i: number) => unknown, calls: number): number {
  for (let i = 0; i < 5_000; i++) fn(i);
  const rounds: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    for (let i = 0; i < calls; i++) fn(i);
    rounds.push(((performance.now() - t) * 1e6) / calls);
  }
  return median(rounds);
}

export const CASES: [string, (i: number) => unknown, number][] = [
  ['localDate (an instant)', (i) => localDate(new Date(base + i * 3_700_000)), 200_000],
  ['localToInstant (a date and 09:30)', (i) => localToInstant(dates[i % 400]!, '09:30'), 200_000],
  ['slotsBetween, 61 days x 2 departures', () => slotsBetween(pack, '2026-11-25', '2027-01-24', now), 2_000],
];

/** The check in a fresh process: what the first report of a function costs. */
const CHECK = `const { runtimeOffsetMs, compareRuntimeRules } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'shared/kernel/tz-check.ts')).href)});
let t = performance.now(); runtimeOffsetMs(Date.now()); const first = performance.now() - t;
t = performance.now(); compareRuntimeRules(); console.log(JSON.stringify([first, performance.now() - t]));`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`${process.version}, tz ${process.versions.tz}; median of ${runs}`);
  for (const [name, fn, calls] of CASES) console.log(`${name.padEnd(40)} ${nsPerCall(fn, calls).toFixed(0).padStart(9)} ns`);
  const samples: number[][] = [];
  for (let r = 0; r < runs; r++) {
    const p = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHECK], { cwd: ROOT, encoding: 'utf8' });
    if (p.status !== 0) throw new Error(p.stderr);
    samples.push(JSON.parse(p.stdout.trim().split('\n').at(-1)!));
  }
  const [formatter, comparison] = [median(samples.map((s) => s[0]!)), median(samples.map((s) => s[1]!))];
  console.log(`${'runtime check: Intl formatter, 1st offset'.padEnd(40)} ${formatter.toFixed(1).padStart(9)} ms`);
  console.log(`${'runtime check: the comparison'.padEnd(40)} ${comparison.toFixed(1).padStart(9)} ms`);
}
