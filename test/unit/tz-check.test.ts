import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { nodeBinaries } from './node-binaries';

// The local runtime's figures are read back from EMF: this file turns it on (the unit project turns it off).
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

const { compareRuntimeRules, runtimeOffsetMs } = await import('../../shared/kernel/tz-check');
const { offsetMs } = await import('../../shared/kernel/time');
const { TZ_RULES } = await import('../../shared/kernel/tz-rules');
const { invoke, lambdaContext } = await import('../../infra/local/lambda');
const { captureFunctionLogs, summarizeMetrics } = await import('../../infra/local/logs');

const ROOT = resolve(import.meta.dirname, '..', '..');
const RULES = `${TZ_RULES.version} (${TZ_RULES.source})`;
const binaries = nodeBinaries();

type Line = Record<string, any>;

/** The fixture under a Node.js of the machine, in a fresh process: what it wrote, in order. */
function under(major: number, ...args: string[]): (Line | string)[] {
  const node = binaries.get(major);
  if (!node) throw new Error(`no Node.js ${major} on this machine: the check is tested on Node 20 (tz 2025c) and Node 22`);
  // A process of its own, as a Lambda function's (not the local runtime's invoke store, which this file's imports set up).
  const { AWS_LAMBDA_MAX_CONCURRENCY: _, ...inherited } = process.env;
  const env = { ...inherited, POWERTOOLS_METRICS_DISABLED: 'false', POWERTOOLS_LOG_LEVEL: 'WARN', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  return JSON.parse(execFileSync(node.path, ['--import', 'tsx', 'test/fixtures/tz-check.ts', ...args], { cwd: ROOT, env, encoding: 'utf8' }));
}
const isEmf = (l: Line | string): l is Line => typeof l !== 'string' && '_aws' in l;
const isWarning = (l: Line | string): l is Line => typeof l !== 'string' && l.level === 'WARN';

describe('the runtime check', { timeout: 60_000 }, () => {
  it("Node 20's data (tz 2025c) differs from the bundled rules from 2026-09-20 01:00 UTC: a warning with both versions, TzDataMismatch = 1", () => {
    const lines = under(20, 'report', '2026-11-28T12:00:00Z');
    expect(lines.filter(isWarning)).toEqual([
      expect.objectContaining({
        message: "the runtime's time-zone data differs from the service's Africa/Casablanca rules",
        runtime_tz: '2025c',
        node: expect.stringMatching(/^v20\./),
        rules: RULES,
        first_difference: '2026-09-20T01:00:00.000Z',
        runtime_offset: '+01:00',
        bundled_offset: '+00:00',
      }),
    ]);
    const docs = lines.filter(isEmf);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ TzDataMismatch: 1, service: 'partner-travel-api', runtime_tz: '2025c', first_difference: '2026-09-20T01:00:00.000Z' });
    expect(docs[0]!._aws.CloudWatchMetrics).toEqual([
      { Namespace: 'PartnerTravel', Dimensions: [['service']], Metrics: [{ Name: 'TzDataMismatch', Unit: 'Count' }] },
    ]);
  });

  it('Node 20 agrees over a window its data shares with the rules (2019 to 2022): no warning, TzDataMismatch = 0', () => {
    const lines = under(20, 'report', '2020-06-01T12:00:00Z');
    expect(lines.filter(isWarning)).toEqual([]);
    expect(lines.filter(isEmf).map((d) => d.TzDataMismatch)).toEqual([0]);
  });

  it(`this runtime (${process.version}, tz ${process.versions.tz}) agrees with the bundled rules over its window`, () => {
    expect(compareRuntimeRules()).toBeUndefined();
    // The comparison reads the runtime's own data: the two sources meet at every change of the rules.
    for (const [change] of TZ_RULES.changes.slice(-5)) expect(runtimeOffsetMs(Date.parse(change))).toBe(offsetMs(Date.parse(change)));
  });

  it('runs after the answer that first computed Morocco time, not before it nor for a handler that never does; then hourly', () => {
    const marks = under(20, 'answers').map((l) => (typeof l === 'string' ? l : '_aws' in l ? `TzDataMismatch ${l.TzDataMismatch}` : l.message));
    const warning = "the runtime's time-zone data differs from the service's Africa/Casablanca rules";
    expect(marks).toEqual([
      'answered plain',
      'settled plain',
      'answered morocco',
      // Between the answer and the next turns of the event loop: after Lambda's runtime has posted the answer.
      warning,
      'TzDataMismatch 1',
      'settled morocco',
      'answered morocco again',
      'settled morocco again',
      // An hour later the figure is written again (the alarm follows the runtimes that still run).
      warning,
      'TzDataMismatch 1',
      'an hour later',
    ]);
  });
});

describe('on the local stack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptbs-tz-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the local runtime writes the figure into the function log, where metrics:summary reads it (this runtime's data agrees: 0)", async () => {
    const file = join(dir, 'lambda.jsonl');
    const restore = captureFunctionLogs(file, { echo: 'stderr', echoLevel: 'SILENT' });
    try {
      await invoke('test/fixtures/tz-handler.ts', { morocco: true }, lambdaContext('fixture-tz'));
      await new Promise((r) => setImmediate(r));
    } finally {
      await restore();
    }
    const figure = (await summarizeMetrics(file)).metrics.find((m) => m.name === 'TzDataMismatch');
    expect(figure).toMatchObject({ namespace: 'PartnerTravel', samples: 1, max: 0, dimensions: { service: 'partner-travel-api' } });
  });
});
