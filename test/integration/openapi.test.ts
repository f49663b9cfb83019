import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { WRITE_SECURITY } from '../../shared/openapi';
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
        expect(op.security).toEqual(route.write ? WRITE_SECURITY : [{ ApiKey: [] }]);
        expect(op.responses['429'].headers['Retry-After']).toBeDefined();
        expect(op.responses['401'].content['application/json'].schema.allOf[0].$ref).toBe('#/components/schemas/ErrorFields');
      }
      if (route.write) expect(op.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey')).toBe(true);
    }
    expect(r.body.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(r.body.components.headers.XRateLimitReset).toBeDefined();
    expect(r.body['x-error-codes'].map((c: { code: string }) => c.code)).toContain('rate_limit.exceeded');
  });

  it('passes the Redocly linter (recommended rules, redocly.yaml) with zero errors and zero warnings', async () => {
    const doc = (await api('GET', '/openapi.json')).text;
    const dir = mkdtempSync(join(tmpdir(), 'oas-'));
    writeFileSync(join(dir, 'openapi.json'), doc);
    const root = resolve(import.meta.dirname, '..', '..');
    const cli = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const { stdout } = await run(process.execPath, [cli, 'lint', 'openapi.json', `--config=${join(root, 'redocly.yaml')}`, '--format=json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; severity: string }[] };
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('gives every operation an operationId, a summary, an example and the codes of each error response', async () => {
    const r = await api('GET', '/openapi.json');
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, any>>(r.body.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        expect(ids.has(op.operationId), `${where}: duplicate operationId`).toBe(false);
        ids.add(op.operationId);
        expect(op.summary, where).toBeTruthy();
        const media = [op.requestBody, ...Object.values(op.responses)].flatMap((x: any) => Object.values(x?.content ?? {}));
        expect(
          media.some((m: any) => m.example !== undefined),
          `${where} has no example`,
        ).toBe(true);
        for (const [status, res] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue;
          expect(res['x-error-codes']?.length, `${where} ${status} lists no codes`).toBeGreaterThan(0);
          for (const code of res['x-error-codes']) {
            const known = r.body['x-error-codes'].find((c: { code: string }) => c.code === code);
            expect(known?.status, `${where} ${status}: ${code}`).toBe(Number(status));
            expect(res.description, `${where} ${status}`).toContain(`\`${code}\``);
          }
        }
      }
    }
    // The operation's own codes are there too.
    expect(r.body.paths['/bookings'].post.responses['422']['x-error-codes']).toContain('payment.amount.mismatch');
    expect(r.body.paths['/quotes'].post.responses['422']['x-error-codes']).toContain('quote.capacity.insufficient');
  });
});
