import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IssuerError } from './issuer-file';
import { MailConfigError } from './mail-address';
import { OncallError } from './oncall';
import { synthOtherRegions } from './rehearsal/regions';
import { ServiceStack } from './stack';

/**
 * Builds the CDK app; cdk-nag's AwsSolutions pack runs on every synth. The CDK CLI binds the stack to the
 * account and region of its credentials (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION), as every deploy does.
 */
export function buildApp(app = new App(), env = boundEnvironment(process.env)) {
  const stack = new ServiceStack(app, process.env.STACK_NAME ?? 'PartnerTravelService', {
    description: 'Partner travel booking service: B2B API for banking partners',
    env,
  });
  Validations.of(stack).acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'The runtime is fixed to Node.js 22 (NODEJS_22_X) by the design decisions; newer runtimes are adopted deliberately, not by the linter.',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}

export function boundEnvironment(vars: NodeJS.ProcessEnv): { account: string; region?: string } | undefined {
  return vars.CDK_DEFAULT_ACCOUNT ? { account: vars.CDK_DEFAULT_ACCOUNT, region: vars.CDK_DEFAULT_REGION } : undefined;
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  try {
    // `npm run rehearse` only: its other regions, in this process so that each asset is bundled once.
    synthOtherRegions(process.env, (env) => buildApp(new App(), env).app.synth());
    buildApp().app.synth();
  } catch (e) {
    // What the operator must set, without a stack trace around it.
    if (!(e instanceof IssuerError || e instanceof MailConfigError || e instanceof OncallError)) throw e;
    console.error(`\n${e.message}\n`);
    process.exit(1);
  }
}
