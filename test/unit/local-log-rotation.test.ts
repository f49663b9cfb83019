import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withinInvocation } from '../../infra/local/lambda';
import { captureFunctionLogs, LOG_RETENTION, rotatedLogFile } from '../../infra/local/logs';

const dir = mkdtempSync(join(tmpdir(), 'ptbs-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const logsDir = () => join(dir, String(++n), 'logs');

describe('function log rotation', () => {
  const run = async (file: string, line: string) => {
    const restore = captureFunctionLogs(file, { echo: 'stderr', echoLevel: 'SILENT', rotate: true });
    await withinInvocation('rotation-test', async () => {
      process.stdout.write(`${JSON.stringify({ level: 'INFO', message: line })}\n`);
    });
    await restore();
  };

  it('keeps the logs of several previous runs, so the run a crash ended survives two restarts', async () => {
    const file = join(logsDir(), 'lambda-3000.jsonl');
    for (const n of [1, 2, 3]) await run(file, `run ${n}`);
    expect(readFileSync(file, 'utf8')).toContain('run 3');
    expect(readFileSync(rotatedLogFile(file, 1), 'utf8')).toContain('run 2');
    expect(readFileSync(rotatedLogFile(file, 2), 'utf8')).toContain('run 1');
  });

  it('keeps at most LOG_RETENTION.files previous files, and drops the oldest beyond LOG_RETENTION.bytes (never the previous run)', async () => {
    const logs = logsDir();
    const file = join(logs, 'lambda-3000.jsonl');
    for (let n = 1; n <= LOG_RETENTION.files + 3; n++) await run(file, `run ${n}`);
    expect(readdirSync(logs).sort()).toEqual(
      ['lambda-3000.jsonl', ...Array.from({ length: LOG_RETENTION.files }, (_, i) => `lambda-3000.${i + 1}.jsonl`)].sort(),
    );
    expect(readFileSync(rotatedLogFile(file, LOG_RETENTION.files), 'utf8')).toContain(`run 3`);

    // Two large previous runs: together over the byte budget, so the older one goes; the previous one stays even alone over it.
    const big = 'x'.repeat(LOG_RETENTION.bytes / 2 + 1);
    writeFileSync(file, big);
    await run(file, 'after a big run');
    writeFileSync(file, big);
    await run(file, 'after a second big run');
    expect(readFileSync(rotatedLogFile(file, 1), 'utf8')).toBe(big);
    expect(existsSync(rotatedLogFile(file, 2))).toBe(false);
  }, 30_000); // writes 64 MB: 1.7 s on a quiet disk, 7 s on a loaded one
});
