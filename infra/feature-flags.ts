import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

/** A flag of `cdk init`'s set kept at another value than the CLI recommends, and why. */
export interface LeftFlag {
  value: unknown;
  reason: string;
}

/**
 * The CDK feature flags in cdk.json are the set `cdk init` writes for a new TypeScript app (the CLI's
 * lib/init-templates/.recommended-feature-flags.json), each at its recommended value, except these.
 * test/infra/feature-flags.test.ts holds cdk.json to the installed CLI's set and this list to deploying.md's
 * "CDK feature flags". None is left today: every flag that changed the templates was followed (the access-log
 * bucket keeps ACLs for CloudFront, the cdk-nag acknowledgements take the stack's partition).
 */
export const LEFT_FLAGS: Record<string, LeftFlag> = {};

export const CDK_JSON = join(import.meta.dirname, '..', 'cdk.json');

const CdkJson = z.object({ context: z.record(z.string(), z.unknown()) });

/** cdk.json's context: the feature flags and the settings every synth of the app takes. */
export function cdkJsonContext(file = CDK_JSON): Record<string, unknown> {
  return CdkJson.parse(JSON.parse(readFileSync(file, 'utf8'))).context;
}

/**
 * The context of an App made outside the CDK CLI (the infra tests, the local stack's IAM layer): cdk.json's, as
 * the CLI hands it to `cdk synth` and `cdk deploy` (an App does not read cdk.json itself), then `extra`. Without
 * it those synthesize with every flag unset, and test and enforce templates that no deploy makes.
 */
export const appContext = (extra: Record<string, unknown> = {}) => ({ ...cdkJsonContext(), ...extra });
