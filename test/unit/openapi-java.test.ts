import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileJavaClient, JAVA_CLIENT_JARS } from '../../scripts/java-client';
import { buildOpenApi } from '../../shared/openapi';

describe('a Java client generated from the OpenAPI document', () => {
  it('compiles with javac (openapi-generator-plus, JAX-RS client), its error codes narrowed to enums', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oas-java-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(buildOpenApi(), null, 2));
    const r = await compileJavaClient(join(dir, 'openapi.json'), dir);
    // Each error response was allOf [Error, {code: enum}]: 370 `getCode() ... cannot override getCode() in Error`.
    expect(r.errors).toEqual([]);
    expect(r.compiled).toBeGreaterThan(500);
    // A response's codes stay an enum of its own, on the fields every error has.
    const model = readFileSync(join(dir, 'src/com/example/model/CreateQuote422Response.java'), 'utf8');
    expect(model).toMatch(/class CreateQuote422Response extends com\.example\.model\.ErrorFields \{/);
    expect(model).toMatch(/QUOTE_CAPACITY_INSUFFICIENT\("quote\.capacity\.insufficient"\)/);
    expect(model).not.toMatch(/BOOKING_NOT_CANCELLABLE/);
  }, 180_000);

  it('has its jars installed by CI from the same Debian packages as scripts/prerequisites.ts', () => {
    const ci = readFileSync(join(import.meta.dirname, '../../.ci/run'), 'utf8');
    for (const { jar, pkg } of JAVA_CLIENT_JARS) expect(ci, jar).toContain(`${jar.replace(/\.jar$/, '')}:${pkg}`);
  });
});
