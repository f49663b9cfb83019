import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import moment from 'moment-timezone';
import { describe, expect, it } from 'vitest';
import { RULES_FILE, renderRules } from '../../scripts/tz-rules';
import { offsetMs } from '../../shared/kernel/time';
import { TZ_RULES } from '../../shared/kernel/tz-rules';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('the bundled time-zone rules', () => {
  it(`${RULES_FILE} is what \`npm run -s tz:rules\` writes from the installed moment-timezone (IANA ${moment.tz.dataVersion})`, () => {
    expect(readFileSync(join(ROOT, RULES_FILE), 'utf8') === renderRules(), `${RULES_FILE} is stale: run npm run -s tz:rules`).toBe(true);
    expect(TZ_RULES.version).toBe(moment.tz.dataVersion);
  });

  it("gives moment-timezone's own offsets for Africa/Casablanca at every hour from 1900 to 2040 and around each change", () => {
    const zone = moment.tz.zone('Africa/Casablanca')!;
    const instants: number[] = [];
    for (let t = Date.UTC(1900, 0, 1); t < Date.UTC(2040, 0, 1); t += 3_600_000) instants.push(t);
    for (const until of zone.untils.slice(0, -1)) instants.push(until - 1, until, until + 1);
    const wrong = instants.filter((t) => offsetMs(t) !== Math.round(-zone.utcOffset(t) * 60) * 1000);
    expect(wrong.map((t) => new Date(t).toISOString())).toEqual([]);
  });
});
