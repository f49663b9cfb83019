import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileJavaClient, JAVA_CLIENT_JARS, runJavaJourney } from '../../scripts/java-client';
import { errorBody } from '../../shared/http/respond';
import { parseWith } from '../../shared/http/validation';
import type { ApiError } from '../../shared/kernel/errors';
import { buildOpenApi } from '../../shared/openapi';
import { capacityInsufficient } from '../../shared/quotes/create';
import { quoteRoutes } from '../../shared/quotes/routes';

/** The error the service answers for `thrower`, as it answers it (shared/http/respond.ts). */
function answered(thrower: () => unknown): ReturnType<typeof errorBody> {
  try {
    thrower();
  } catch (e) {
    return errorBody(e as ApiError, 'c3b1f0a2-7d4e-4f6a-9b8c-2e5d1a0f9c47');
  }
  throw new Error('no error thrown');
}

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

    // The journey: POST /quotes answered 400 (validation, details.errors[] objects) and 422 (numbers), read as
    // the client's typed exceptions read them. With details a free map (Map<String,String>) the 400 threw
    // MismatchedInputException instead.
    const bad = { rate_pack_id: 'not-a-uuid', start_date: '2026-12-10', start_time: null, travelers: [{ age: 'thirty' }], kind: 'x' };
    const invalid = answered(() => parseWith(quoteRoutes.createQuote.request!.body!, bad, 'body'));
    const full = answered(() => {
      throw capacityInsufficient(2, 5);
    });
    writeFileSync(join(dir, '400.json'), JSON.stringify(invalid));
    writeFileSync(join(dir, '422.json'), JSON.stringify(full));
    const lines = await runJavaJourney(dir, [
      { file: join(dir, '400.json'), model: 'com.example.model.CreateQuote400Response' },
      { file: join(dir, '422.json'), model: 'com.example.model.CreateQuote422Response' },
    ]);
    const read = lines.map((l) => {
      const [model, json] = l.split('\t');
      expect(json, `${model} was not read: ${json}`).toMatch(/^\{/);
      return JSON.parse(json!);
    });
    expect(read[0].code).toBe(invalid.code);
    expect(invalid.details!.errors!.length).toBeGreaterThanOrEqual(3);
    expect(read[0].details.errors).toMatchObject(invalid.details!.errors!);
    expect(read[0].details.errors[0]).toMatchObject({ location: 'body', expected: expect.any(String) });
    expect(read[1]).toMatchObject({ code: 'quote.capacity.insufficient', details: { remaining: 2, requested: 5 } });
  }, 240_000);

  it('has its jars installed by CI from the same Debian packages as scripts/prerequisites.ts', () => {
    const ci = readFileSync(join(import.meta.dirname, '../../.ci/run'), 'utf8');
    for (const { jar, pkg } of JAVA_CLIENT_JARS) expect(ci, jar).toContain(`${jar.replace(/\.jar$/, '')}:${pkg}`);
  });
});
