import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issuerOf } from '../../infra/issuer';
import { exampleIssuer } from '../../infra/issuer-file';
import { QUEUES } from '../../shared/queues';
import { ROUTE_LIST } from '../../shared/routes';
import { isServiceFunction, type Resource, synthService } from './synth';

const dir = mkdtempSync(join(tmpdir(), 'issuer-'));
const REAL = {
  ISSUER_NAME: 'Voyages Atlas SA',
  ISSUER_ADDRESS: '3 rue Ibn Batouta, 10000 Rabat, Maroc',
  ISSUER_ICE: '002222333000044',
  ISSUER_IF: '40404040',
  ISSUER_RC: 'Rabat 98765',
  ISSUER_BANK: 'Banque Populaire, agence Agdal',
  ISSUER_RIB: '190 810 2111122223333444 55',
};
const file = (name: string, content: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

/** Every service function's environment, by logical id. */
const environments = (s: ReturnType<typeof synthService>) =>
  s
    .everywhere('AWS::Lambda::Function')
    .filter(([, , f]) => isServiceFunction(f))
    .map(([, id, f]) => [id, (f as Resource).Properties.Environment.Variables as Record<string, unknown>] as const);

/** The functions that issue invoices: the queue consumers and the routes that render PDFs. */
const issuing = (id: string) =>
  Object.entries(QUEUES).some(([k, q]) => q.rendersPdf && new RegExp(`^Webhooks${k}Consumer[0-9A-F]{8}$`).test(id)) ||
  ROUTE_LIST.some((r) => r.rendersPdf && new RegExp(`^${r.id}Function[0-9A-F]{8}$`).test(id));

describe("the issuer's identity in the stack", () => {
  let configured: ReturnType<typeof synthService>;
  let specimen: ReturnType<typeof synthService>;
  beforeAll(() => {
    configured = synthService({ issuer: file('issuer.json', REAL) });
    specimen = synthService();
  });

  it('is set from the issuer file on the settlement consumer and the sandbox settlement-run helper, and on no other function', () => {
    const envs = environments(configured);
    const withIssuer = envs.filter(([, v]) => Object.keys(v).some((k) => k.startsWith('ISSUER_'))).map(([id]) => id);
    expect(withIssuer.sort()).toEqual(
      envs
        .map(([id]) => id)
        .filter(issuing)
        .sort(),
    );
    expect(withIssuer.some((id) => id.startsWith('WebhookssettlementsConsumer'))).toBe(true);
    expect(withIssuer.some((id) => id.startsWith('runSettlementsTestHelperFunction'))).toBe(true);
    for (const [, v] of envs.filter(([id]) => issuing(id))) expect(v).toMatchObject({ ...REAL, ISSUER_SPECIMEN: 'false' });
    expect(configured.synthError).toBeUndefined();
    Annotations.fromStack(configured.stack).hasNoWarning('*', Match.stringLikeRegexp('SPECIMEN'));
  });

  it('is the example one marked SPECIMEN when no issuer file is given, with a warning on the stack', () => {
    const envs = environments(specimen).filter(([id]) => issuing(id));
    // The settlement consumer, the settlement run helper and the clock worker (the 1st of a month issues).
    expect(envs).toHaveLength(3);
    for (const [, v] of envs) expect(v).toMatchObject({ ...exampleIssuer(), ISSUER_SPECIMEN: 'true' });
    expect(environments(specimen).filter(([id, v]) => !issuing(id) && 'ISSUER_SPECIMEN' in v)).toEqual([]);
    expect(specimen.synthError).toBeUndefined();
    Annotations.fromStack(specimen.stack).hasWarning('/PartnerTravelService', Match.stringLikeRegexp('SPECIMEN — not a valid invoice'));
  });
});

describe('reading the issuer file at synth', () => {
  const issuerIn = (context: Record<string, unknown>) => issuerOf(new Stack(new App({ context }), 'S'));
  afterEach(() => {
    delete process.env.ALLOW_SPECIMEN_ISSUER;
  });

  it('names each missing or invalid field, and unknown ones', () => {
    const { ISSUER_ICE: _, ...noIce } = REAL;
    expect(() => issuerIn({ issuer: file('no-ice.json', noIce) })).toThrow(/issuer file .*no-ice\.json: ISSUER_ICE is missing/);
    expect(() => issuerIn({ issuer: file('bad.json', { ...REAL, ISSUER_ICE: '12', ISSUER_RIB: 'x' }) })).toThrow(
      /ISSUER_ICE is invalid: an ICE is 15 digits; ISSUER_RIB is invalid: a RIB is 24 digits/,
    );
    expect(() => issuerIn({ issuer: file('typo.json', { ...REAL, ISSUER_ICEE: '1' }) })).toThrow(/unknown field\(s\) ISSUER_ICEE/);
    expect(() => issuerIn({ issuer: file('empty-name.json', { ...REAL, ISSUER_NAME: ' ' }) })).toThrow(/ISSUER_NAME is invalid/);
    expect(() => issuerIn({ issuer: file('broken.json', '{"ISSUER_NAME":') })).toThrow(/broken\.json: not JSON/);
    expect(() => issuerIn({ issuer: join(dir, 'absent.json') })).toThrow(/absent\.json: no such file/);
  });

  it('refuses the specimen when the issuer is required (npm run deploy), unless ALLOW_SPECIMEN_ISSUER=1', () => {
    expect(() => issuerIn({ requireIssuer: 'true' })).toThrow(/No issuer identity.*-c issuer=PATH.*ALLOW_SPECIMEN_ISSUER=1/);
    expect(issuerIn({ requireIssuer: 'true', issuer: file('ok.json', REAL) })).toEqual({ ...REAL, ISSUER_SPECIMEN: 'false' });
    process.env.ALLOW_SPECIMEN_ISSUER = '1';
    expect(issuerIn({ requireIssuer: 'true' })).toMatchObject({ ISSUER_SPECIMEN: 'true' });
  });

  it('treats an unedited copy of the example file (its ICE or RIB) as the specimen it is: marked, and refused by npm run deploy', () => {
    const copy = file('copy.json', exampleIssuer());
    expect(issuerIn({ issuer: copy })).toEqual({ ...exampleIssuer(), ISSUER_SPECIMEN: 'true' });
    expect(issuerIn({ issuer: file('half.json', { ...REAL, ISSUER_RIB: exampleIssuer().ISSUER_RIB }) })).toMatchObject({ ISSUER_SPECIMEN: 'true' });
    expect(() => issuerIn({ requireIssuer: 'true', issuer: copy })).toThrow(/copy\.json: it holds the example company's ICE or RIB/);
  });
});
