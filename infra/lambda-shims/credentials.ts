import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles
 * (see LAMBDA_BUNDLE_ALIASES). Lambda always hands a function its role's
 * credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
 * AWS_SESSION_TOKEN, so the rest of the default chain (shared ini files, SSO,
 * web identity, container and instance metadata, with the STS and SSO clients
 * they load) is never reached there. Bundling it cost every function about
 * 90 KB and its load time.
 */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
