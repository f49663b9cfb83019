import { createPrivateKey, randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { decodeJwt, SignJWT } from 'jose';
import { type Mail, sendEmail } from '../../shared/mail/send';
import { htmlToText } from '../../shared/team/invitation';
import { jsonObject, refuseTunnels } from './http-guard';
import { LOCAL_REGION } from './iam/model';
import { closeServer } from './services';

const require = createRequire(import.meta.url);

/**
 * The local Cognito user pool: cognito-local's own operations (its Router and
 * services, persisted under the state directory), served in-process at
 * `/cognito/` on the API's port so that the browser and the service reach it as
 * they reach Cognito in AWS (the JSON protocol, `X-Amz-Target`).
 *
 * cognito-local is less strict than Cognito in ways that matter to the
 * console, so this thin layer restores AWS's behaviour (docs/operations/local-stack.md, "The local Cognito"):
 * - MFA is required (the pool's MFA is ON): a member without a verified TOTP
 *   gets the MFA_SETUP challenge, and AssociateSoftwareToken /
 *   VerifySoftwareToken work with its Session, as in AWS;
 * - a challenge's Session is bound to its user and challenge and lasts 3 minutes
 *   (cognito-local accepts any Session, and a temporary password is not even checked);
 * - a disabled user cannot sign in; passwords follow the pool's policy;
 * - AdminCreateUser without a password generates one that meets the policy and
 *   e-mails the invitation (through the local SES, from the deployment's sender, as a pool with
 *   EmailSendingAccount DEVELOPER does), and MessageAction RESEND resends it; the pool's CustomMessage trigger
 *   writes it, invoked as Cognito invokes it (./cognito-triggers.ts: only under the function's resource policy),
 *   without AdminCreateUser's ClientMetadata, which AWS gives the pre sign-up trigger only;
 * - access and ID tokens carry origin_jti, one per sign-in, kept by its refreshes (the API's sign-out
 *   revokes a session by it); a refreshed access token keeps the auth_time of its sign-in;
 * - a sign-in that answered a challenge (TOTP: every sign-in after enrolment) gets a refresh token that
 *   works (cognito-local stores only those of InitiateAuth);
 * - GlobalSignOut / AdminUserGlobalSignOut revoke the user's refresh tokens.
 * The errors carry their exception name (`__type`), as the AWS SDK expects.
 */

// biome-ignore lint/suspicious/noExplicitAny: bodies of the Cognito JSON protocol, passed through to cognito-local as they are
type Json = Record<string, any>;
interface CognitoUser {
  Username: string;
  Password?: string;
  Enabled: boolean;
  UserStatus: string;
  Attributes: { Name: string; Value?: string }[];
  SoftwareTokenMfaConfiguration?: { Verified?: boolean };
  RefreshTokens?: string[];
}
interface UserPoolService {
  options: Json;
  getUserByUsername(ctx: unknown, username: string): Promise<CognitoUser | null>;
  saveUser(ctx: unknown, user: CognitoUser): Promise<void>;
}

export class CognitoException extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** The pool's password policy (the CDK user pool has the same). */
export const PASSWORD_POLICY = 'at least 12 characters, with an upper-case letter, a lower-case letter, a digit and a symbol';

export function meetsPasswordPolicy(p: string): boolean {
  return p.length >= 12 && /[A-Z]/.test(p) && /[a-z]/.test(p) && /\d/.test(p) && /[^A-Za-z0-9]/.test(p);
}

/** A temporary password that meets the policy, as Cognito generates one. */
export function temporaryPassword(): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!#%+-=?@^_'];
  const all = sets.join('');
  const chars = sets.map((s) => s[randomInt(s.length)]!);
  while (chars.length < 16) chars.push(all[randomInt(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

const SESSION_MS = 3 * 60_000;
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as const;
const ctx = { logger: silent };

interface ChallengeSession {
  username: string;
  challenge: 'NEW_PASSWORD_REQUIRED' | 'MFA_SETUP' | 'SOFTWARE_TOKEN_MFA';
  expires: number;
  /** MFA_SETUP: the tokens the password earned, released once a TOTP is verified. */
  tokens?: Json;
  verified?: boolean;
}

export interface LocalCognito {
  userPoolId: string;
  clientId: string;
  /** The issuer of its tokens (the JWKS is at issuer + /.well-known/jwks.json). */
  issuer: string;
  /** Serves POST /cognito/ and GET /cognito/<pool>/.well-known/jwks.json; false when the path is not its own. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  /**
   * The same, on a port of its own: the service's and the admin CLI's endpoint
   * (http://127.0.0.1:<port>/cognito), up before the API listens.
   */
  listen(port: number): Promise<{ endpoint: string; stop(): Promise<void> }>;
  /** The pool's Lambda triggers, once the IAM layer knows them (infra/local/cognito-triggers.ts). */
  useTriggers(triggers: CognitoTriggers): void;
}

/** Invokes a trigger as Cognito does: its answer, or a CognitoException as Cognito's (the invocation refused, the function failed). */
export type CognitoTrigger = (event: Json) => Promise<Json>;
export interface CognitoTriggers {
  customMessage?: CognitoTrigger;
}

/** Cognito's placeholders in a CustomMessage event (request.codeParameter, request.usernameParameter). */
const CODE_PARAMETER = '{####}';
const USERNAME_PARAMETER = '{username}';

const attr = (u: CognitoUser, name: string) => u.Attributes.find((a) => a.Name === name)?.Value;

export async function startLocalCognito(stateDir: string, baseOrigin: string, consoleUrl: string): Promise<LocalCognito> {
  const dir = join(stateDir, 'cognito');
  mkdirSync(dir, { recursive: true });
  // cognito-local loads the AWS SDK v2 (for its Lambda triggers, unused here), which prints a notice on load.
  process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
  const lib = (p: string) => require(`cognito-local/lib/${p}`);
  const { StormDBDataStoreFactory } = lib('services/dataStore/stormDb');
  const { CognitoServiceFactoryImpl } = lib('services/cognitoService');
  const { UserPoolServiceFactoryImpl } = lib('services/userPoolService');
  const services = lib('services');
  const { MessageDeliveryService } = lib('services/messageDelivery/messageDelivery');
  const { JwtTokenGenerator } = lib('services/tokenGenerator');
  const { otp } = lib('services/otp');
  const { CryptoService } = lib('services/crypto');
  const { Router } = lib('server/Router');
  const { CognitoError, UnsupportedError } = lib('errors');
  const privateKey = require('cognito-local/lib/keys/cognitoLocal.private.json') as { pem: string };
  const publicKey = require('cognito-local/lib/keys/cognitoLocal.public.json') as { jwk: Json };

  const issuerDomain = `${baseOrigin}/cognito`;
  const clock = new services.DateClock();
  const dataStoreFactory = new StormDBDataStoreFactory(dir);
  const cognito = await new CognitoServiceFactoryImpl(dir, dataStoreFactory, new UserPoolServiceFactoryImpl(clock, dataStoreFactory)).create(ctx, {
    UsernameAttributes: ['email'],
    MfaConfiguration: 'OPTIONAL',
  });
  // The codes (password reset) go through SES from the deployment's sender, as the AWS pool sends them (DEVELOPER);
  // the invitations too, written by the pool's CustomMessage trigger when it has one (deliverInvitation below).
  const deliver = async (mail: Mail) => {
    try {
      await sendEmail(mail);
    } catch (e) {
      // What Cognito answers when SES refuses its message.
      throw new CognitoException(
        'CodeDeliveryFailureException',
        `Cognito received the following error from Amazon SES when attempting to send email: ${(e as Error).message}`,
      );
    }
  };
  const sender = {
    sendEmail: async (_c: unknown, _user: CognitoUser, destination: string, message: { __code?: string; emailSubject?: string }) =>
      deliver({ to: destination, subject: message.emailSubject ?? 'Your Partner Travel console code', text: `Your code: ${message.__code}\n` }),
    sendSms: async () => {
      throw new CognitoException('InvalidParameterException', 'SMS is not enabled on this user pool.');
    },
  };
  const triggers = new services.TriggersService(clock, cognito, { enabled: () => false }, new CryptoService({}));
  const svc = {
    clock,
    cognito,
    config: { TokenConfig: { IssuerDomain: issuerDomain } },
    messages: new services.MessagesService(triggers, new MessageDeliveryService(sender)),
    otp,
    tokenGenerator: new JwtTokenGenerator(clock, triggers, { IssuerDomain: issuerDomain }),
    triggers,
  };
  const router = Router(svc);
  const call = async (target: string, body: Json): Promise<Json> => router(target)({ logger: silent }, body);

  // The pool and its client survive restarts (their ids are in the state directory).
  const idsFile = join(dir, 'ids.json');
  let ids = existsSync(idsFile) ? (JSON.parse(readFileSync(idsFile, 'utf8')) as { userPoolId: string; clientId: string }) : undefined;
  if (!ids) {
    const pool = await call('CreateUserPool', { PoolName: 'partner-console', UsernameAttributes: ['email'], MfaConfiguration: 'OPTIONAL' });
    const client = await call('CreateUserPoolClient', {
      UserPoolId: pool.UserPool.Id,
      ClientName: 'console',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      AccessTokenValidity: 60,
      IdTokenValidity: 60,
      RefreshTokenValidity: 12,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'hours' },
    });
    ids = { userPoolId: pool.UserPool.Id, clientId: client.UserPoolClient.ClientId };
    writeFileSync(idsFile, JSON.stringify(ids, null, 2));
  }
  const { userPoolId, clientId } = ids;
  const issuer = `${issuerDomain}/${userPoolId}`;
  const pool = (): Promise<UserPoolService> => cognito.getUserPool(ctx, userPoolId);
  const userOf = async (username: string) => (await pool()).getUserByUsername(ctx, username);
  const signingKey = createPrivateKey(privateKey.pem);

  const sessions = new Map<string, ChallengeSession>();
  /** auth_time and origin_jti of each refresh token's sign-in (Cognito keeps both across refreshes). */
  const signIns = new Map<string, { authTime: number; originJti: string }>();
  const resign = (token: string, claims: Json) =>
    new SignJWT({ ...decodeJwt(token), ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'CognitoLocal' }).sign(signingKey);
  const open = (s: Omit<ChallengeSession, 'expires'>) => {
    const id = `${randomUUID()}${randomUUID()}`.replace(/-/g, '');
    sessions.set(id, { ...s, expires: Date.now() + SESSION_MS });
    return id;
  };
  const take = (id: unknown, challenge: ChallengeSession['challenge']): ChallengeSession => {
    const s = typeof id === 'string' ? sessions.get(id) : undefined;
    if (typeof id === 'string') sessions.delete(id);
    if (!s || s.expires < Date.now() || s.challenge !== challenge)
      throw new CognitoException('NotAuthorizedException', 'Invalid session for the user, session is expired.');
    return s;
  };
  const challengeParams = (u: CognitoUser) => ({ USER_ID_FOR_SRP: u.Username });
  /** After the password: TOTP if the user has one, else MFA_SETUP (the pool requires MFA). */
  const afterPassword = (u: CognitoUser, tokens: Json) => {
    if (u.SoftwareTokenMfaConfiguration?.Verified) {
      return {
        ChallengeName: 'SOFTWARE_TOKEN_MFA',
        ChallengeParameters: challengeParams(u),
        Session: open({ username: u.Username, challenge: 'SOFTWARE_TOKEN_MFA' }),
      };
    }
    return { ChallengeName: 'MFA_SETUP', ChallengeParameters: challengeParams(u), Session: open({ username: u.Username, challenge: 'MFA_SETUP', tokens }) };
  };
  const issued = async (result: Json) => {
    let tokens = result.AuthenticationResult as Json | undefined;
    if (tokens?.RefreshToken && tokens.AccessToken) {
      const claims = decodeJwt(tokens.AccessToken);
      const originJti = randomUUID();
      signIns.set(tokens.RefreshToken, { authTime: claims.auth_time as number, originJti });
      tokens = {
        ...tokens,
        AccessToken: await resign(tokens.AccessToken, { origin_jti: originJti }),
        ...(tokens.IdToken ? { IdToken: await resign(tokens.IdToken, { origin_jti: originJti }) } : {}),
      };
      const u = await userOf(claims.username as string);
      if (u && !u.RefreshTokens?.includes(tokens.RefreshToken)) {
        await (await pool()).saveUser(ctx, { ...u, RefreshTokens: [...(u.RefreshTokens ?? []), tokens.RefreshToken] });
      }
    }
    return { ...result, AuthenticationResult: tokens && { TokenType: 'Bearer', ExpiresIn: 3600, ...tokens } };
  };
  const checkPolicy = (password: unknown) => {
    if (typeof password !== 'string' || !meetsPasswordPolicy(password)) {
      throw new CognitoException('InvalidPasswordException', `Password does not conform to policy: ${PASSWORD_POLICY}.`);
    }
  };
  const signedInUser = async (username: string | undefined): Promise<CognitoUser> => {
    const u = username ? await userOf(username) : null;
    if (!u) throw new CognitoException('NotAuthorizedException', 'Incorrect username or password.');
    if (!u.Enabled) throw new CognitoException('NotAuthorizedException', 'User is disabled.');
    return u;
  };
  const revokeRefreshTokens = async (username: string) => {
    const u = await userOf(username);
    if (u) await (await pool()).saveUser(ctx, { ...u, RefreshTokens: [] });
  };
  const accessUser = async (accessToken: unknown) => {
    const claims = typeof accessToken === 'string' ? decodeJwt(accessToken) : undefined;
    const u = typeof claims?.sub === 'string' ? await userOf(claims.sub) : null;
    if (!u) throw new CognitoException('NotAuthorizedException', 'Invalid Access Token');
    return u;
  };

  let poolTriggers: CognitoTriggers = {};
  /**
   * The invitation as Cognito writes it: the pool's CustomMessage trigger (CustomMessage_AdminCreateUser), whose
   * HTML must keep both placeholders; without a trigger, the pool's own text. Made before the user is, so that a
   * failing trigger fails the AdminCreateUser. The event holds the user's attributes and the placeholders
   * (codeParameter, usernameParameter) and no clientMetadata, on a RESEND as on a first invitation: AWS's
   * AdminCreateUser reference gives its ClientMetadata to the pre sign-up trigger and names no other (API_AdminCreateUser,
   * "ClientMetadata"), where AdminResetUserPassword's and AdminUpdateUserAttributes' name the custom message trigger;
   * the trigger's own page (user-pool-lambda-custom-message) documents request.userAttributes, codeParameter and
   * usernameParameter for CustomMessage_AdminCreateUser.
   */
  const invitation = async (user: { Username: string; Attributes: CognitoUser['Attributes'] }, email: string, password: string) => {
    const fallback: Mail = {
      to: email,
      subject: 'Your invitation to the Partner Travel console',
      text: `You have been invited to your company's Partner Travel console.\n\nSign in at ${consoleUrl} with\n  e-mail: ${email}\n  temporary password: ${password}\n\nYou will choose your own password and set up an authenticator app. The temporary password expires in 7 days.\n`,
    };
    if (!poolTriggers.customMessage) return fallback;
    const answer = await poolTriggers.customMessage({
      version: '1',
      triggerSource: 'CustomMessage_AdminCreateUser',
      region: LOCAL_REGION,
      userPoolId,
      userName: user.Username,
      callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'CLIENT_ID_NOT_APPLICABLE' },
      request: {
        userAttributes: Object.fromEntries(user.Attributes.map((a) => [a.Name, a.Value ?? ''])),
        codeParameter: CODE_PARAMETER,
        linkParameter: '{##Click Here##}',
        usernameParameter: USERNAME_PARAMETER,
      },
      response: { smsMessage: null, emailMessage: null, emailSubject: null },
    });
    const message = answer?.response?.emailMessage;
    if (message === null || message === undefined) return fallback;
    if (typeof message !== 'string' || !message.includes(CODE_PARAMETER) || !message.includes(USERNAME_PARAMETER)) {
      throw new CognitoException('InvalidLambdaResponseException', 'Invalid lambda response: the invitation must contain the code and username parameters.');
    }
    const html = message.replaceAll(CODE_PARAMETER, password).replaceAll(USERNAME_PARAMETER, email);
    const subject = typeof answer.response.emailSubject === 'string' ? answer.response.emailSubject : fallback.subject;
    return { to: email, subject, html, text: htmlToText(html) };
  };

  const operations: Record<string, (body: Json) => Promise<Json>> = {
    InitiateAuth: async (body) => {
      if (body.AuthFlow === 'REFRESH_TOKEN_AUTH' || body.AuthFlow === 'REFRESH_TOKEN') {
        const refresh = body.AuthParameters?.REFRESH_TOKEN as string | undefined;
        const result = await call('InitiateAuth', body);
        const signIn = refresh ? signIns.get(refresh) : undefined;
        if (signIn && result.AuthenticationResult?.AccessToken) {
          // cognito-local stamps the refresh time; Cognito keeps the sign-in's auth_time and origin_jti.
          const kept = { auth_time: signIn.authTime, origin_jti: signIn.originJti };
          result.AuthenticationResult.AccessToken = await resign(result.AuthenticationResult.AccessToken, kept);
          if (result.AuthenticationResult.IdToken) result.AuthenticationResult.IdToken = await resign(result.AuthenticationResult.IdToken, kept);
        }
        return { ...result, AuthenticationResult: result.AuthenticationResult && { TokenType: 'Bearer', ExpiresIn: 3600, ...result.AuthenticationResult } };
      }
      if (body.AuthFlow !== 'USER_PASSWORD_AUTH')
        throw new CognitoException('InvalidParameterException', `AuthFlow ${body.AuthFlow} is not enabled for this client.`);
      const u = await signedInUser(body.AuthParameters?.USERNAME);
      // cognito-local answers NEW_PASSWORD_REQUIRED before it checks the temporary password.
      if (u.Password !== body.AuthParameters?.PASSWORD) throw new CognitoException('NotAuthorizedException', 'Incorrect username or password.');
      const result = await call('InitiateAuth', body);
      if (result.ChallengeName === 'NEW_PASSWORD_REQUIRED') {
        return { ...result, Session: open({ username: u.Username, challenge: 'NEW_PASSWORD_REQUIRED' }) };
      }
      if (result.ChallengeName === 'SOFTWARE_TOKEN_MFA') return afterPassword(u, {});
      return afterPassword(u, result.AuthenticationResult);
    },
    RespondToAuthChallenge: async (body) => {
      const s = take(body.Session, body.ChallengeName);
      const u = await signedInUser(s.username);
      const responses = { ...(body.ChallengeResponses ?? {}), USERNAME: u.Username };
      if (s.challenge === 'NEW_PASSWORD_REQUIRED') {
        checkPolicy(responses.NEW_PASSWORD);
        const result = await call('RespondToAuthChallenge', { ...body, ChallengeResponses: responses });
        return afterPassword(await signedInUser(u.Username), result.AuthenticationResult);
      }
      if (s.challenge === 'MFA_SETUP') {
        if (!s.verified) throw new CognitoException('InvalidParameterException', 'Verify a software token (VerifySoftwareToken) before MFA_SETUP.');
        await call('SetUserMFAPreference', { AccessToken: s.tokens!.AccessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } });
        return issued({ ChallengeParameters: {}, AuthenticationResult: s.tokens });
      }
      return issued(await call('RespondToAuthChallenge', { ...body, ChallengeResponses: responses }));
    },
    AssociateSoftwareToken: async (body) => {
      if (body.AccessToken) return call('AssociateSoftwareToken', body);
      const s = take(body.Session, 'MFA_SETUP');
      const result = await call('AssociateSoftwareToken', { AccessToken: s.tokens!.AccessToken });
      return { SecretCode: result.SecretCode, Session: open(s) };
    },
    VerifySoftwareToken: async (body) => {
      if (body.AccessToken) return call('VerifySoftwareToken', body);
      const s = take(body.Session, 'MFA_SETUP');
      try {
        await call('VerifySoftwareToken', { AccessToken: s.tokens!.AccessToken, UserCode: body.UserCode, FriendlyDeviceName: body.FriendlyDeviceName });
      } catch (e) {
        // A wrong code keeps the enrolment open: the user types the next one.
        sessions.set(body.Session, { ...s, expires: Date.now() + SESSION_MS });
        throw e;
      }
      return { Status: 'SUCCESS', Session: open({ ...s, verified: true }) };
    },
    AdminCreateUser: async (body) => {
      const password = body.TemporaryPassword ?? temporaryPassword();
      if (body.MessageAction === 'RESEND') {
        const u = await userOf(body.Username);
        if (!u) throw new CognitoException('UserNotFoundException', 'User does not exist.');
        if (u.UserStatus !== 'FORCE_CHANGE_PASSWORD')
          throw new CognitoException('UnsupportedUserStateException', 'Resend not possible. User is not in FORCE_CHANGE_PASSWORD state.');
        const email = attr(u, 'email')!;
        const mail = await invitation(u, email, password);
        const updated = { ...u, Password: password };
        await (await pool()).saveUser(ctx, updated);
        await deliver(mail);
        return { User: { Username: u.Username, Enabled: u.Enabled, UserStatus: u.UserStatus, Attributes: u.Attributes } };
      }
      if (body.MessageAction === 'SUPPRESS') return call('AdminCreateUser', { ...body, TemporaryPassword: password });
      const attributes = (body.UserAttributes ?? []) as CognitoUser['Attributes'];
      const email = attributes.find((a) => a.Name === 'email')?.Value ?? String(body.Username);
      const mail = await invitation({ Username: String(body.Username), Attributes: attributes }, email, password);
      const created = await call('AdminCreateUser', { ...body, MessageAction: 'SUPPRESS', TemporaryPassword: password });
      await deliver(mail);
      return created;
    },
    AdminSetUserPassword: async (body) => {
      checkPolicy(body.Password);
      return call('AdminSetUserPassword', body);
    },
    ChangePassword: async (body) => {
      checkPolicy(body.ProposedPassword);
      return call('ChangePassword', body);
    },
    GlobalSignOut: async (body) => {
      await revokeRefreshTokens((await accessUser(body.AccessToken)).Username);
      return {};
    },
    AdminUserGlobalSignOut: async (body) => {
      const u = await userOf(body.Username);
      if (!u) throw new CognitoException('UserNotFoundException', 'User does not exist.');
      await revokeRefreshTokens(u.Username);
      return {};
    },
  };

  const send = (res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'access-control-allow-origin': '*', ...headers });
    // Dates as epoch seconds, as Cognito sends them (the holder is read: Date.toJSON runs before a replacer sees the value).
    res.end(
      JSON.stringify(body, function (this: Record<string, unknown>, k, v) {
        const raw = this[k];
        return raw instanceof Date ? Math.floor(raw.getTime() / 1000) : v;
      }),
    );
  };
  const jwksPath = `/cognito/${userPoolId}/.well-known/jwks.json`;

  const local: LocalCognito = {
    userPoolId,
    clientId,
    issuer,
    useTriggers(t) {
      poolTriggers = t;
    },
    async listen(port) {
      const server = refuseTunnels(
        createServer((req, res) => {
          if (!local.handle(req, res, (req.url ?? '/').split('?')[0]!)) send(res, 404, { __type: 'UnknownOperationException', message: 'Not found.' });
        }),
      );
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      return { endpoint: `http://127.0.0.1:${port}/cognito`, stop: () => closeServer(server) };
    },
    handle(req, res, path) {
      if (path === jwksPath && req.method === 'GET') {
        send(res, 200, { keys: [publicKey.jwk] }, { 'content-type': 'application/json' });
        return true;
      }
      if (path !== '/cognito/' && path !== '/cognito') return false;
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type, x-amz-target, x-amz-user-agent, authorization',
        });
        res.end();
        return true;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
        void (async () => {
          try {
            if (req.method !== 'POST' || !target) throw new CognitoException('UnknownOperationException', 'POST a Cognito operation with X-Amz-Target.');
            // A JSON object, or Cognito cannot read it (null or a list once reached an operation, and answered 500).
            const body = jsonObject(Buffer.concat(chunks).toString('utf8') || '{}') as Json | undefined;
            if (!body) throw new CognitoException('SerializationException', 'The request body is not a JSON object.');
            send(res, 200, await (operations[target] ?? ((b: Json) => call(target, b)))(body));
          } catch (e) {
            const type =
              e instanceof CognitoException
                ? e.type
                : e instanceof CognitoError
                  ? (e as { code: string }).code
                  : e instanceof UnsupportedError
                    ? 'UnsupportedOperationException'
                    : undefined;
            if (!type) console.error(`[cognito] ${target} failed:`, e);
            const name = type ?? 'InternalErrorException';
            send(res, type ? 400 : 500, { __type: name, message: (e as Error).message }, { 'x-amzn-errortype': name });
          }
        })();
      });
      return true;
    },
  };
  return local;
}
