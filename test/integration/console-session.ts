import { createPrivateKey, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { decodeJwt, SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { admin, api, baseUrl, type newPartner, stackRuntime } from './helpers';

/**
 * Console sessions for integration tests: a member signs in through the local
 * Cognito (/cognito/, the Cognito JSON protocol) as the console does — new
 * password, TOTP enrolment (MFA_SETUP), TOTP sign-in — and calls the API with
 * its access token.
 */
const require = createRequire(import.meta.url);

export const cognitoUrl = () => `${new URL(baseUrl()).origin}/cognito/`;

export async function cognito(op: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(cognitoUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${op}` },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

let clientId: string | undefined;
export async function consoleClientId(): Promise<string> {
  clientId ??= ((await (await fetch(`${stackRuntime().consoleUrl}config.json`)).json()) as { cognito: { clientId: string } }).cognito.clientId;
  return clientId;
}

export const totpCode = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

export interface ConsoleUser {
  email: string;
  password: string;
  /** The TOTP secret, once enrolled. */
  totpSecret?: string;
}

export interface ConsoleSession {
  accessToken: string;
  refreshToken: string;
  user: ConsoleUser;
}

/** A strong password (the pool's policy: 12+ characters, upper, lower, digit, symbol). */
export const strongPassword = () => `Pw-${randomUUID().slice(0, 12)}-Aa9!`;

/**
 * Signs in as the console does, answering every challenge: a temporary
 * password is replaced (user.password is updated), a first sign-in enrols a
 * TOTP (user.totpSecret is set), a later one answers with a code.
 */
export async function signIn(user: ConsoleUser): Promise<ConsoleSession> {
  const ClientId = await consoleClientId();
  const USERNAME = user.email;
  let r = await cognito('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId, AuthParameters: { USERNAME, PASSWORD: user.password } });
  for (let step = 0; step < 4 && r.status === 200 && !r.body.AuthenticationResult; step++) {
    const { ChallengeName, Session } = r.body;
    if (ChallengeName === 'NEW_PASSWORD_REQUIRED') {
      user.password = strongPassword();
      r = await cognito('RespondToAuthChallenge', { ChallengeName, ClientId, Session, ChallengeResponses: { USERNAME, NEW_PASSWORD: user.password } });
    } else if (ChallengeName === 'MFA_SETUP') {
      const a = await cognito('AssociateSoftwareToken', { Session });
      user.totpSecret = a.body.SecretCode;
      const v = await cognito('VerifySoftwareToken', { Session: a.body.Session, UserCode: totpCode(user.totpSecret!), FriendlyDeviceName: 'tests' });
      r = await cognito('RespondToAuthChallenge', { ChallengeName, ClientId, Session: v.body.Session, ChallengeResponses: { USERNAME } });
    } else if (ChallengeName === 'SOFTWARE_TOKEN_MFA') {
      r = await cognito('RespondToAuthChallenge', {
        ChallengeName,
        ClientId,
        Session,
        ChallengeResponses: { USERNAME, SOFTWARE_TOKEN_MFA_CODE: totpCode(user.totpSecret!) },
      });
    } else {
      throw new Error(`unexpected challenge ${ChallengeName}`);
    }
  }
  if (!r.body.AuthenticationResult) throw new Error(`sign-in of ${user.email} failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { accessToken: r.body.AuthenticationResult.AccessToken, refreshToken: r.body.AuthenticationResult.RefreshToken, user };
}

/** The headers of a console session's request. */
export const sessionHeaders = (s: ConsoleSession | string, env: 'sandbox' | 'live') => ({
  authorization: `Bearer ${typeof s === 'string' ? s : s.accessToken}`,
  'x-environment': env,
});

/** A session's request; writes get an Idempotency-Key (pass one in headers to retry). */
export function sessionApi(
  s: ConsoleSession | string,
  env: 'sandbox' | 'live',
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const write = method !== 'GET';
  return api(method, path, { headers: { ...sessionHeaders(s, env), ...(write ? { 'idempotency-key': randomUUID() } : {}), ...headers }, body });
}

/**
 * A member of `partner` with `role` (an operator adds it, with `names` if given), its console password
 * set by the operator (member:set-password), signed in with a TOTP enrolled.
 */
export async function consoleMember(partner: Awaited<ReturnType<typeof newPartner>>, role: string, names?: { first: string; last: string }) {
  const email = `${role.toLowerCase()}-${randomUUID().slice(0, 8)}@bank.example`;
  const named = names ? ['--first-name', names.first, '--last-name', names.last] : [];
  const m = await admin(['member:add', '--partner', partner.partner_id, '--email', email, '--role', role, ...named, '--json']);
  if (m.code !== 0) throw new Error(`member:add failed: ${m.stderr}`);
  const user: ConsoleUser = { email, password: strongPassword() };
  const set = await admin(['member:set-password', '--partner', partner.partner_id, '--member', m.json.member_id, '--password', user.password, '--json']);
  if (set.code !== 0) throw new Error(`member:set-password failed: ${set.stderr}`);
  return { memberId: m.json.member_id as string, user, session: await signIn(user) };
}

/** The partner's first admin, signed in to the console (partner:create makes it; an operator sets its password). */
export async function consoleAdmin(partner: Awaited<ReturnType<typeof newPartner>>) {
  const members = await admin(['member:list', '--partner', partner.partner_id, '--json']);
  const m = (members.json.data as { member_id: string; email: string }[]).find((x) => x.member_id === partner.member_id)!;
  const user: ConsoleUser = { email: m.email, password: strongPassword() };
  const set = await admin(['member:set-password', '--partner', partner.partner_id, '--member', m.member_id, '--password', user.password, '--json']);
  if (set.code !== 0) throw new Error(`member:set-password failed: ${set.stderr}`);
  return { memberId: m.member_id, user, session: await signIn(user) };
}

/** The temporary password of the last invitation e-mail to `email` (the local stack's outbox). */
export async function invitationPassword(email: string): Promise<string> {
  const mails = (await admin(['mail:list', '--to', email, '--json'])).json?.data as { subject: string; text: string }[] | undefined;
  const invitation = [...(mails ?? [])].reverse().find((m) => /invit/i.test(m.subject));
  const password = /temporary password:?\s+(\S+)/i.exec(invitation?.text ?? '')?.[1];
  if (!password) throw new Error(`no invitation e-mail with a temporary password to ${email}: ${JSON.stringify(mails)}`);
  return password;
}

/**
 * The access token as the local Cognito would sign it, with other claims: cognito-local's signing key
 * ships in its package (a local stack's tokens are not secret), which lets a test stage a sign-in
 * 20 minutes old without waiting 20 minutes.
 */
export async function resign(token: string, claims: Record<string, unknown>) {
  const pem = (require('cognito-local/lib/keys/cognitoLocal.private.json') as { pem: string }).pem;
  return new SignJWT({ ...decodeJwt(token), ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'CognitoLocal' }).sign(createPrivateKey(pem));
}
