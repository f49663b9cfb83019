import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type IssuerSettings, issuerSchema } from '../shared/settlements/config';

/**
 * The issuer file: the operator's (`-c issuer=PATH`, infra/issuer.ts) or the example. Apart from the CDK code, so
 * the local runtime loads no aws-cdk-lib.
 */

/** A missing or invalid issuer identity: the synth stops with this message alone (infra/app.ts), for an operator to act on. */
export class IssuerError extends Error {}

/** The example company: what the local runtime issues under, and a stack synthesized without an issuer file (as a SPECIMEN). */
export const EXAMPLE_ISSUER_FILE = join(import.meta.dirname, 'issuer.example.json');

/** The issuer file's variables, validated with the schema the functions read them with; every problem named in one plain message. */
export function readIssuerFile(path: string): IssuerSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new IssuerError(`issuer file ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(e as Error).message})`}`);
  }
  const parsed = issuerSchema.strict().safeParse(raw);
  if (!parsed.success) {
    const given = (raw ?? {}) as Record<string, unknown>;
    const problems = parsed.error.issues.map((i) => {
      if (i.code === 'unrecognized_keys') return `unknown field(s) ${i.keys.join(', ')}`;
      const field = i.path.join('.');
      return field === '' ? i.message : given[field] === undefined ? `${field} is missing` : `${field} is invalid: ${i.message}`;
    });
    throw new IssuerError(`issuer file ${path}: ${problems.join('; ')} (the fields are those of infra/issuer.example.json)`);
  }
  return parsed.data;
}

export const exampleIssuer = () => readIssuerFile(EXAMPLE_ISSUER_FILE);
