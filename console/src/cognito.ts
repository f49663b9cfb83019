import { config, unreachable } from './config';

/**
 * Amazon Cognito's JSON protocol, spoken with fetch (no SDK in the browser):
 * POST to the endpoint with X-Amz-Target naming the operation. Errors are a 400
 * with {__type, message}.
 */
export class CognitoError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'CognitoError';
  }
}

export interface AuthenticationResult {
  AccessToken: string;
  IdToken: string;
  RefreshToken?: string;
  ExpiresIn: number;
}

export type ChallengeName = 'NEW_PASSWORD_REQUIRED' | 'MFA_SETUP' | 'SOFTWARE_TOKEN_MFA';

/** What InitiateAuth and RespondToAuthChallenge answer: tokens, or the next challenge. */
export type AuthStep = { tokens: AuthenticationResult } | { challenge: ChallengeName; session: string; parameters: Record<string, string> };

/** Plain words for the errors a member can meet; anything else shows Cognito's own message. */
const PLAIN: Record<string, string> = {
  NotAuthorizedException: 'Incorrect e-mail or password.',
  UserNotFoundException: 'Incorrect e-mail or password.',
  CodeMismatchException: 'That code is not right. Check the 6 digits in your authenticator app and try again.',
  EnableSoftwareTokenMFAException: 'That code is not right. Check the 6 digits in your authenticator app and try again.',
  ExpiredCodeException: 'That code has expired. Enter the code your authenticator app shows now.',
  TooManyRequestsException: 'Too many attempts. Wait a minute, then try again.',
  TooManyFailedAttemptsException: 'Too many attempts. Wait a minute, then try again.',
  LimitExceededException: 'Too many attempts. Wait a minute, then try again.',
  PasswordResetRequiredException: 'Your password must be reset. Ask an administrator of your team to send you a new invitation.',
  UserNotConfirmedException: 'Your account is not confirmed yet. Ask an administrator of your team.',
};

/** Messages that say more than the plain words above: kept as Cognito wrote them. */
const KEEP_MESSAGE = new Set(['InvalidPasswordException', 'InvalidParameterException']);

function plainMessage(type: string, message: string): string {
  if (type === 'NotAuthorizedException') {
    if (/disabled/i.test(message)) return 'Your account is disabled. Ask an administrator of your team.';
    if (/session/i.test(message) && /expired|invalid/i.test(message)) return 'This sign-in took too long. Start again with your e-mail and password.';
    if (/refresh token/i.test(message)) return 'Your session has ended; sign in again.';
    if (/temporary password has expired/i.test(message)) return 'Your temporary password has expired. Ask an administrator to resend your invitation.';
  }
  if (KEEP_MESSAGE.has(type)) return message;
  return PLAIN[type] ?? message;
}

async function call<T>(operation: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(config().cognito.endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': `AWSCognitoIdentityProviderService.${operation}`,
      },
      body: JSON.stringify(body),
    });
  } catch {
    throw new CognitoError('NetworkError', await unreachable('The sign-in service'));
  }
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // not JSON: the status says it
  }
  if (!res.ok) {
    const type = String(json.__type ?? json.code ?? 'Error')
      .split('#')
      .pop()!;
    const message = String(json.message ?? json.Message ?? `The sign-in service answered HTTP ${res.status}.`);
    throw new CognitoError(type, plainMessage(type, message));
  }
  return json as T;
}

interface RawAuth {
  ChallengeName?: string;
  Session?: string;
  ChallengeParameters?: Record<string, string>;
  AuthenticationResult?: AuthenticationResult;
}

function toStep(r: RawAuth): AuthStep {
  if (r.AuthenticationResult?.AccessToken) return { tokens: r.AuthenticationResult };
  const c = r.ChallengeName;
  if (c === 'NEW_PASSWORD_REQUIRED' || c === 'MFA_SETUP' || c === 'SOFTWARE_TOKEN_MFA') {
    return { challenge: c, session: r.Session ?? '', parameters: r.ChallengeParameters ?? {} };
  }
  throw new CognitoError('UnsupportedChallenge', `The sign-in service asked for ${c ?? 'nothing known'}, which the console does not support.`);
}

export async function initiatePasswordAuth(email: string, password: string): Promise<AuthStep> {
  return toStep(
    await call<RawAuth>('InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: config().cognito.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
}

export async function refreshTokens(refreshToken: string): Promise<AuthenticationResult> {
  const r = await call<RawAuth>('InitiateAuth', {
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    ClientId: config().cognito.clientId,
    AuthParameters: { REFRESH_TOKEN: refreshToken },
  });
  if (!r.AuthenticationResult?.AccessToken) throw new CognitoError('NotAuthorizedException', 'Your session has ended; sign in again.');
  return r.AuthenticationResult;
}

export async function respondToChallenge(challenge: ChallengeName, session: string, responses: Record<string, string>): Promise<AuthStep> {
  return toStep(
    await call<RawAuth>('RespondToAuthChallenge', {
      ChallengeName: challenge,
      ClientId: config().cognito.clientId,
      Session: session,
      ChallengeResponses: responses,
    }),
  );
}

export async function associateSoftwareToken(session: string): Promise<{ secretCode: string; session: string }> {
  const r = await call<{ SecretCode: string; Session?: string }>('AssociateSoftwareToken', { Session: session });
  return { secretCode: r.SecretCode, session: r.Session ?? session };
}

export async function verifySoftwareToken(session: string, code: string): Promise<string> {
  const r = await call<{ Status: string; Session?: string }>('VerifySoftwareToken', { Session: session, UserCode: code, FriendlyDeviceName: 'Authenticator' });
  if (r.Status !== 'SUCCESS') throw new CognitoError('EnableSoftwareTokenMFAException', PLAIN.CodeMismatchException!);
  return r.Session ?? session;
}

export async function globalSignOut(accessToken: string): Promise<void> {
  await call('GlobalSignOut', { AccessToken: accessToken });
}

/** The claims of a JWT's payload, read (not verified: the API verifies) for exp and auth_time. */
export function tokenClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) return {};
  try {
    const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  } catch {
    return {};
  }
}
