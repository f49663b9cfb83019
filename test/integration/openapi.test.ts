import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROUTE_LIST } from '../../shared/routes';
import { api } from './helpers';

const run = promisify(execFile);

describe('GET /v1/openapi.json', () => {
  it('is public and documents every route of the table with a response schema', async () => {
    const r = await api('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    for (const route of ROUTE_LIST) {
      const op = r.body.paths[route.path.replace(/^\/v1/, '')]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'));
      expect(success, `${route.id} has no 2xx response`).toBeDefined();
      expect((success![1] as { content?: unknown }).content, `${route.id} has no documented response schema`).toBeDefined();
      if (route.access === 'key') {
        expect(op.security).toEqual([{ ApiKey: [] }]);
        expect(op.responses['429'].headers['Retry-After']).toBeDefined();
        expect(op.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      }
      if (route.write) expect(op.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey')).toBe(true);
    }
    expect(r.body.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(r.body.components.headers.XRateLimitReset).toBeDefined();
    expect(r.body['x-error-codes'].map((c: { code: string }) => c.code)).toContain('rate_limit.exceeded');
  });

  it('passes the Redocly linter (recommended rules) with zero errors', async () => {
    const doc = (await api('GET', '/openapi.json')).text;
    const dir = mkdtempSync(join(tmpdir(), 'oas-'));
    writeFileSync(join(dir, 'openapi.json'), doc);
    const cli = resolve(import.meta.dirname, '..', '..', 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const { stdout } = await run(process.execPath, [cli, 'lint', 'openapi.json', '--extends=recommended', '--format=json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { message: string; severity: string }[] };
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });
});
