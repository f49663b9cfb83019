import * as z from 'zod';
import { loadConfig } from '../kernel/config';

/**
 * The console's identity provider: the Cognito user pool and its app client.
 * The issuer and JWKS address default to Cognito's in AWS; the local stack sets
 * them to the local Cognito.
 */
export const identityConfig = z
  .object({
    AWS_REGION: z.string().min(1).default('eu-west-1'),
    USER_POOL_ID: z.string().min(1),
    USER_POOL_CLIENT_ID: z.string().min(1),
    COGNITO_ISSUER: z.url().optional(),
    COGNITO_JWKS_URI: z.url().optional(),
    /** The console's origin (CloudFront in AWS): the one origin CORS allows. */
    CONSOLE_ORIGIN: z.url().optional(),
  })
  .transform((c) => {
    const issuer = c.COGNITO_ISSUER ?? `https://cognito-idp.${c.AWS_REGION}.amazonaws.com/${c.USER_POOL_ID}`;
    return {
      region: c.AWS_REGION,
      userPoolId: c.USER_POOL_ID,
      clientId: c.USER_POOL_CLIENT_ID,
      issuer,
      jwksUri: c.COGNITO_JWKS_URI ?? `${issuer}/.well-known/jwks.json`,
      consoleOrigin: c.CONSOLE_ORIGIN,
    };
  });

export function identity() {
  return loadConfig(identityConfig);
}
