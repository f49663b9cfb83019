import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  AdminUserGlobalSignOutCommand,
  CognitoIdentityProviderClient,
  type CognitoIdentityProviderServiceException,
} from '@aws-sdk/client-cognito-identity-provider';
import { traced } from '../kernel/tracing';
import { identity } from './config';

/**
 * The console's users in the Cognito user pool, through the AWS SDK (the local
 * stack serves the same protocol at /cognito/). A user is named by its `sub`,
 * which is its username in a pool that signs in by e-mail.
 */
let client: CognitoIdentityProviderClient | undefined;
const cognito = () => (client ??= traced(new CognitoIdentityProviderClient({ region: identity().region })));
const pool = () => identity().userPoolId;

export class DirectoryError extends Error {
  constructor(
    readonly kind: 'exists' | 'not_found' | 'invalid_password' | 'not_invited',
    message: string,
  ) {
    super(message);
  }
}

function translate(e: unknown): never {
  const name = (e as CognitoIdentityProviderServiceException).name;
  const message = (e as Error).message;
  if (name === 'UsernameExistsException') throw new DirectoryError('exists', message);
  if (name === 'UserNotFoundException') throw new DirectoryError('not_found', message);
  if (name === 'InvalidPasswordException') throw new DirectoryError('invalid_password', message);
  if (name === 'UnsupportedUserStateException') throw new DirectoryError('not_invited', message);
  throw e;
}

const run = <T>(p: Promise<T>): Promise<T> => p.catch(translate);

export interface DirectoryUser {
  sub: string;
  email: string;
  enabled: boolean;
  /** FORCE_CHANGE_PASSWORD until the first sign-in; CONFIRMED after. */
  status: string;
  /** When the user was created (an invitation's user, for a left-over one's age). */
  createdAt?: Date;
}

export const directory = {
  /** Creates the user; Cognito e-mails the temporary password. Returns its `sub` (the member's id). */
  async invite(email: string, names: { first_name: string; last_name: string }, opts: { suppressMail?: boolean } = {}): Promise<string> {
    const r = await run(
      cognito().send(
        new AdminCreateUserCommand({
          UserPoolId: pool(),
          Username: email,
          DesiredDeliveryMediums: ['EMAIL'],
          ...(opts.suppressMail ? { MessageAction: 'SUPPRESS' } : {}),
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
            ...(names.first_name ? [{ Name: 'given_name', Value: names.first_name }] : []),
            ...(names.last_name ? [{ Name: 'family_name', Value: names.last_name }] : []),
          ],
        }),
      ),
    );
    const sub = r.User?.Attributes?.find((a) => a.Name === 'sub')?.Value ?? r.User?.Username;
    if (!sub) throw new Error('AdminCreateUser answered without the user id');
    return sub;
  },

  /** A new temporary password, e-mailed to the user of `email`; only for a user who has not signed in yet. */
  async resendInvitation(email: string): Promise<void> {
    await run(cognito().send(new AdminCreateUserCommand({ UserPoolId: pool(), Username: email, MessageAction: 'RESEND', DesiredDeliveryMediums: ['EMAIL'] })));
  },

  async get(sub: string): Promise<DirectoryUser | undefined> {
    try {
      const r = await cognito().send(new AdminGetUserCommand({ UserPoolId: pool(), Username: sub }));
      const attr = (n: string) => r.UserAttributes?.find((a) => a.Name === n)?.Value;
      return {
        sub: attr('sub') ?? sub,
        email: attr('email') ?? '',
        enabled: r.Enabled ?? false,
        status: r.UserStatus ?? 'UNKNOWN',
        ...(r.UserCreateDate ? { createdAt: r.UserCreateDate } : {}),
      };
    } catch (e) {
      if ((e as Error).name === 'UserNotFoundException') return undefined;
      throw e;
    }
  },

  /** Disabled users cannot sign in, and their refresh tokens are revoked (the API refuses their sessions at once anyway). */
  async setEnabled(sub: string, enabled: boolean): Promise<void> {
    if (enabled) {
      await run(cognito().send(new AdminEnableUserCommand({ UserPoolId: pool(), Username: sub })));
      return;
    }
    await run(cognito().send(new AdminDisableUserCommand({ UserPoolId: pool(), Username: sub })));
    await run(cognito().send(new AdminUserGlobalSignOutCommand({ UserPoolId: pool(), Username: sub })));
  },

  /** Deleting a user that is already gone is not an error (a retried removal). */
  async remove(sub: string): Promise<void> {
    try {
      await cognito().send(new AdminDeleteUserCommand({ UserPoolId: pool(), Username: sub }));
    } catch (e) {
      if ((e as Error).name !== 'UserNotFoundException') throw e;
    }
  },

  /** Operators (support, tests): a permanent password, or a temporary one the user must change. */
  async setPassword(sub: string, password: string, permanent = true): Promise<void> {
    await run(cognito().send(new AdminSetUserPasswordCommand({ UserPoolId: pool(), Username: sub, Password: password, Permanent: permanent })));
  },
};
