import { resolve } from 'node:path';
import { Annotations, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { IssuerSettings } from '../shared/settlements/config';
import { exampleIssuer, IssuerError, readIssuerFile } from './issuer-file';

/** The variables set on every function that issues invoices: the identity, and ISSUER_SPECIMEN for the example one. */
export type IssuerEnvironment = IssuerSettings & { ISSUER_SPECIMEN: 'true' | 'false' };

/**
 * The issuer's identity of a synth: the JSON file named by `-c issuer=PATH` (relative to the directory cdk
 * runs in). Without one, the example identity as a SPECIMEN (every invoice says so) and a warning on the
 * stack, so `npm run synth` and the tests work offline; `-c requireIssuer=true` (what `npm run deploy`
 * passes) refuses that unless ALLOW_SPECIMEN_ISSUER=1.
 */
export function issuerOf(scope: Construct): IssuerEnvironment {
  const path = scope.node.tryGetContext('issuer') as string | undefined;
  const given = path ? readIssuerFile(resolve(path)) : undefined;
  // An unedited copy of the example file is the example company, whatever its path: a specimen too.
  if (given && !isExample(given)) return { ...given, ISSUER_SPECIMEN: 'false' };
  const required = String(scope.node.tryGetContext('requireIssuer') ?? '') === 'true';
  if (required && process.env.ALLOW_SPECIMEN_ISSUER !== '1') {
    if (given) {
      throw new IssuerError(
        `issuer file ${path}: it holds the example company's ICE or RIB (infra/issuer.example.json), not the issuer's: put the real ` +
          'identity in it, or set ALLOW_SPECIMEN_ISSUER=1 for a staging stack whose invoices may be specimens.',
      );
    }
    throw new IssuerError(
      "No issuer identity: invoices would carry the example company's, marked SPECIMEN. Copy infra/issuer.example.json, put the " +
        'real name, address, ICE, IF, RC, bank and RIB in it and deploy with `npm run deploy -- -c issuer=PATH`; for a staging ' +
        'stack whose invoices may be specimens, set ALLOW_SPECIMEN_ISSUER=1 (docs/operations/deploying.md).',
    );
  }
  Annotations.of(Stack.of(scope)).addWarningV2(
    'partner-travel:issuer-specimen',
    'No issuer identity (-c issuer=PATH): the settlement functions issue invoices under the example company, each marked ' +
      '"SPECIMEN — not a valid invoice". See docs/operations/deploying.md, "The issuer\'s legal identity".',
  );
  return { ...exampleIssuer(), ISSUER_SPECIMEN: 'true' };
}

const digits = (s: string) => s.replace(/\D/g, '');
function isExample(i: IssuerSettings): boolean {
  const example = exampleIssuer();
  return digits(i.ISSUER_ICE) === digits(example.ISSUER_ICE) || digits(i.ISSUER_RIB) === digits(example.ISSUER_RIB);
}
