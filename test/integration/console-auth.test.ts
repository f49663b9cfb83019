import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { CONSOLE_CORS } from '../../infra/console-policy';
import { accessKeys } from '../../shared/access/keys';
import {
  cognito,
  consoleAdmin,
  consoleClientId,
  consoleMember,
  invitationPassword,
  resign,
  sessionApi,
  sessionHeaders,
  signIn,
  strongPassword,
  totpCode,
} from './console-session';
import { admin, api, baseUrl, newPartner, stackRuntime, testDb, write } from './helpers';

describe('console sign-in through the local Cognito (MFA required, as in AWS)', () => {
  it('an invited member signs in with the e-mailed temporary password, sets a strong one, enrols TOTP, then signs in with a code', async () => {
    const p = await newPartner();
    const email = `invitee-${randomUUID().slice(0, 8)}@bank.example`;
    const added = await admin(['member:add', '--partner', p.partner_id, '--email', email, '--role', 'FINANCE', '--json']);
    expect(added.code, added.stderr).toBe(0);
    const temporary = await invitationPassword(email);
    expect(temporary).toBeTruthy();
    const ClientId = await consoleClientId();
    const initiate = (PASSWORD: string) => cognito('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId, AuthParameters: { USERNAME: email, PASSWORD } });

    // A wrong temporary password is refused (cognito-local alone would answer the challenge).
    expect((await initiate('Wrong-password-1!')).body.__type).toBe('NotAuthorizedException');
    const first = await initiate(temporary!);
    expect(first.body.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    // Sessions are bound to their challenge: this one cannot answer MFA_SETUP.
    const misuse = await cognito('RespondToAuthChallenge', {
      ChallengeName: 'MFA_SETUP',
      ClientId,
      Session: first.body.Session,
      ChallengeResponses: { USERNAME: email },
    });
    expect(misuse.body.__type).toBe('NotAuthorizedException');
    const again = await initiate(temporary!);
    const weak = await cognito('RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId,
      Session: again.body.Session,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: 'short' },
    });
    expect(weak.body.__type).toBe('InvalidPasswordException');
    const password = strongPassword();
    const third = await initiate(temporary!);
    const mfaSetup = await cognito('RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId,
      Session: third.body.Session,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: password },
    });
    // No token without a second factor: the pool requires MFA.
    expect(mfaSetup.body.ChallengeName).toBe('MFA_SETUP');
    expect(mfaSetup.body.AuthenticationResult).toBeUndefined();
    const assoc = await cognito('AssociateSoftwareToken', { Session: mfaSetup.body.Session });
    expect(assoc.body.SecretCode).toMatch(/^[A-Z2-7]{16,}$/);
    const wrong = await cognito('VerifySoftwareToken', { Session: assoc.body.Session, UserCode: '000000' });
    expect(wrong.body.__type).toBe('CodeMismatchException');
    const verified = await cognito('VerifySoftwareToken', { Session: assoc.body.Session, UserCode: totpCode(assoc.body.SecretCode) });
    expect(verified.body.Status).toBe('SUCCESS');
    const done = await cognito('RespondToAuthChallenge', {
      ChallengeName: 'MFA_SETUP',
      ClientId,
      Session: verified.body.Session,
      ChallengeResponses: { USERNAME: email },
    });
    const token = done.body.AuthenticationResult.AccessToken as string;
    expect(decodeJwt(token).sub).toBe(added.json.member_id);

    // The temporary password is gone; the next sign-in asks for a TOTP code.
    expect((await initiate(temporary!)).body.__type).toBe('NotAuthorizedException');
    const next = await initiate(password);
    expect(next.body.ChallengeName).toBe('SOFTWARE_TOKEN_MFA');
    const bad = await cognito('RespondToAuthChallenge', {
      ChallengeName: 'SOFTWARE_TOKEN_MFA',
      ClientId,
      Session: next.body.Session,
      ChallengeResponses: { USERNAME: email, SOFTWARE_TOKEN_MFA_CODE: '000000' },
    });
    expect(bad.body.__type).toBe('CodeMismatchException');

    const me = await api('GET', '/me', { headers: sessionHeaders(token, 'sandbox') });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ via: 'console', key: null, environment: 'test', member: { id: added.json.member_id, email, role: 'FINANCE' } });
  });

  it('a refreshed token keeps the sign-in time, and a global sign-out ends the refresh token', async () => {
    const p = await newPartner();
    const { session } = await consoleAdmin(p);
    const ClientId = await consoleClientId();
    await new Promise((r) => setTimeout(r, 1100));
    const refreshed = await cognito('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId, AuthParameters: { REFRESH_TOKEN: session.refreshToken } });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const token = refreshed.body.AuthenticationResult.AccessToken as string;
    expect(decodeJwt(token).auth_time).toBe(decodeJwt(session.accessToken).auth_time);
    expect((await api('GET', '/me', { headers: sessionHeaders(token, 'live') })).status).toBe(200);
    expect((await cognito('GlobalSignOut', { AccessToken: token })).status).toBe(200);
    const after = await cognito('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId, AuthParameters: { REFRESH_TOKEN: session.refreshToken } });
    expect(after.body.__type).toBe('NotAuthorizedException');
  });
});

describe('members made before the console', () => {
  it('members:link-console gives them a console user and keeps their id; their keys keep working', async () => {
    const p = await newPartner();
    // A member as stored before the console: no console user, no identity link.
    const { ddb, accessTable } = testDb();
    const memberId = randomUUID();
    const email = `older-${memberId.slice(0, 8)}@bank.example`;
    const member = { member_id: memberId, partner_id: p.partner_id, email, role: 'DEVELOPER', enabled: true, first_name: 'Old', last_name: 'Member' };
    await ddb.send(
      new PutCommand({
        TableName: accessTable,
        Item: { ...accessKeys.member(p.partner_id, memberId), type: 'member', ...member, created_at: '2026-01-05T10:00:00.000Z' },
      }),
    );
    await ddb.send(
      new PutCommand({ TableName: accessTable, Item: { ...accessKeys.memberEmail(p.partner_id, email), type: 'member_email', member_id: memberId } }),
    );
    const key = await admin(['key:issue', '--partner', p.partner_id, '--member', memberId, '--env', 'test', '--json']);
    expect((await admin(['member:set-password', '--partner', p.partner_id, '--member', memberId, '--password', strongPassword(), '--json'])).stderr).toMatch(
      /members:link-console/,
    );

    const linked = await admin(['members:link-console', '--partner', p.partner_id, '--json']);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.json.linked).toEqual([{ partner_id: p.partner_id, member_id: memberId, email }]);
    // Idempotent: nothing left to link.
    expect((await admin(['members:link-console', '--partner', p.partner_id, '--json'])).json.linked).toEqual([]);

    const user = { email, password: strongPassword() };
    expect((await admin(['member:set-password', '--partner', p.partner_id, '--member', memberId, '--password', user.password, '--json'])).code).toBe(0);
    const session = await signIn(user);
    const me = await api('GET', '/me', { headers: sessionHeaders(session, 'sandbox') });
    expect(me.body.member).toMatchObject({ id: memberId, email, role: 'DEVELOPER' });
    expect(decodeJwt(session.accessToken).sub).not.toBe(memberId);
    expect((await api('GET', '/me', { key: key.json.key })).body.member.id).toBe(memberId);
  });
});

describe('the API with a console session', () => {
  it('needs X-Environment, and acts in the environment it names, never mixing them', async () => {
    const p = await newPartner();
    const { session } = await consoleAdmin(p);
    const missing = await api('GET', '/me', { headers: { authorization: `Bearer ${session.accessToken}` } });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('auth.session.environment_required');
    // Counted as every request of the session is: the X-RateLimit-* headers are on this answer too.
    expect(Number(missing.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(missing.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect((await api('GET', '/me', { headers: sessionHeaders(session, 'live') })).body.environment).toBe('live');

    const created = await sessionApi(session, 'sandbox', 'POST', '/webhooks', {
      url: 'http://localhost:9/sandbox',
      event_types: ['booking.confirmed'],
    });
    expect(created.status, created.text).toBe(201);
    const sandboxList = await sessionApi(session, 'sandbox', 'GET', '/webhooks');
    const liveList = await sessionApi(session, 'live', 'GET', '/webhooks');
    expect(sandboxList.body.data.map((w: { id: string }) => w.id)).toContain(created.body.id);
    expect(liveList.body.data.map((w: { id: string }) => w.id)).not.toContain(created.body.id);
    // The same endpoint through the partner's live key: not there either; through its sandbox key: there.
    expect((await api('GET', `/webhooks/${created.body.id}`, { key: p.live_key })).status).toBe(404);
    expect((await api('GET', `/webhooks/${created.body.id}`, { key: p.test_key })).status).toBe(200);
  });

  it('writes live without a signature while the sign-in is recent, and records them as via console', async () => {
    const p = await newPartner();
    const { session, memberId } = await consoleAdmin(p);
    const r = await sessionApi(session, 'live', 'POST', '/webhooks', { url: 'http://localhost:9/live', event_types: ['booking.confirmed'] });
    expect(r.status, r.text).toBe(201);
    const audit = await api('GET', '/audit-events?limit=5', { key: p.live_key });
    const line = audit.body.data.find((e: { request_id: string }) => e.request_id === r.headers.get('x-request-id'));
    expect(line).toMatchObject({ member_id: memberId, via: 'console', key_id: null, key_prefix: null, method: 'POST', path: '/v1/webhooks', status: 201 });
    // A key's writes say so too.
    const byKey = await write('POST', '/webhooks', p.live_key, { url: 'http://localhost:9/key', event_types: ['booking.confirmed'] });
    const keyLine = (await api('GET', '/audit-events?limit=5', { key: p.live_key })).body.data.find(
      (e: { request_id: string }) => e.request_id === byKey.headers.get('x-request-id'),
    );
    expect(keyLine).toMatchObject({ via: 'api_key', key_prefix: p.live_key_id });
  });

  it('refuses a live write 15 minutes after the sign-in (re-authentication), but not a read or a sandbox write', async () => {
    const p = await newPartner();
    const { session } = await consoleAdmin(p);
    const old = await resign(session.accessToken, { auth_time: Math.floor(Date.now() / 1000) - 16 * 60 });
    const live = await sessionApi(old, 'live', 'POST', '/webhooks', { url: 'http://localhost:9/late', event_types: ['booking.confirmed'] });
    expect(live.status).toBe(403);
    expect(live.body.code).toBe('auth.session.reauthentication_required');
    expect(live.body.message).toMatch(/sign in again/);
    expect((await sessionApi(old, 'live', 'GET', '/webhooks')).status).toBe(200);
    expect((await sessionApi(old, 'sandbox', 'POST', '/webhooks', { url: 'http://localhost:9/s', event_types: ['booking.confirmed'] })).status).toBe(201);
    const recent = await resign(session.accessToken, { auth_time: Math.floor(Date.now() / 1000) - 14 * 60 });
    expect((await sessionApi(recent, 'live', 'POST', '/webhooks', { url: 'http://localhost:9/ok', event_types: ['booking.confirmed'] })).status).toBe(201);
  });

  it('refuses a token from the future (sign-in or issue beyond 30 s of clock skew): its negative age would pass the 15-minute rule', async () => {
    const p = await newPartner();
    const { session } = await consoleAdmin(p);
    const now = Math.floor(Date.now() / 1000);
    const future = await resign(session.accessToken, { auth_time: now + 3600 });
    const live = await sessionApi(future, 'live', 'POST', '/webhooks', { url: 'http://localhost:9/future', event_types: ['booking.confirmed'] });
    expect(live.status, live.text).toBe(401);
    expect(live.body.code).toBe('auth.session.invalid');
    for (const token of [future, await resign(session.accessToken, { iat: now + 3600 }), await resign(session.accessToken, { auth_time: now + 90 })]) {
      const r = await api('GET', '/me', { headers: sessionHeaders(token, 'sandbox') });
      expect(r.status, r.text).toBe(401);
      expect(r.body.code).toBe('auth.session.invalid');
    }
    // Within the allowance (a Cognito clock a few seconds ahead), the session works.
    const skewed = await resign(session.accessToken, { auth_time: now + 5, iat: now + 5 });
    expect((await api('GET', '/me', { headers: sessionHeaders(skewed, 'live') })).status).toBe(200);
  });

  it('refuses tokens that are not a live session of a member: forged, expired, an ID token, another issuer', async () => {
    const p = await newPartner();
    const { session } = await consoleAdmin(p);
    const idToken = (
      await cognito('InitiateAuth', {
        AuthFlow: 'REFRESH_TOKEN_AUTH',
        ClientId: await consoleClientId(),
        AuthParameters: { REFRESH_TOKEN: session.refreshToken },
      })
    ).body.AuthenticationResult.IdToken as string;
    const [h, , s] = session.accessToken.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(session.accessToken), sub: randomUUID() })).toString('base64url')}.${s}`;
    const cases = {
      tampered,
      expired: await resign(session.accessToken, { exp: Math.floor(Date.now() / 1000) - 60 }),
      idToken,
      otherIssuer: await resign(session.accessToken, { iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_other' }),
      otherClient: await resign(session.accessToken, { client_id: 'another-client' }),
      unknownUser: await resign(session.accessToken, { sub: randomUUID() }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const r = await api('GET', '/me', { headers: sessionHeaders(token, 'sandbox') });
      expect(r.status, name).toBe(401);
      expect(r.body.code, name).toBe('auth.session.invalid');
    }
  });

  it("applies the member's role, and a disabled member's session fails at its next request", async () => {
    const p = await newPartner();
    const viewer = await consoleMember(p, 'VIEWER');
    const w = await sessionApi(viewer.session, 'sandbox', 'POST', '/webhooks', { url: 'http://localhost:9/v', event_types: ['booking.confirmed'] });
    expect(w.status).toBe(403);
    expect(w.body.code).toBe('auth.scope.insufficient');
    expect((await sessionApi(viewer.session, 'sandbox', 'GET', '/webhooks')).status).toBe(200);

    const fin = await consoleMember(p, 'FINANCE');
    expect((await sessionApi(fin.session, 'sandbox', 'GET', '/settlements')).status).toBe(200);
    expect((await admin(['member:disable', '--partner', p.partner_id, '--member', fin.memberId, '--json'])).code).toBe(0);
    const after = await sessionApi(fin.session, 'sandbox', 'GET', '/settlements');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('auth.session.invalid');
  });

  it('POST /me/sign-out ends every session of the member at the API, even one signed in long ago, in both environments', async () => {
    const p = await newPartner();
    const { session, user } = await consoleAdmin(p);
    const other = await signIn(user);
    // Sessions signed in before the sign-out's second end (one signed in within that very second counts as after it).
    await new Promise((r) => setTimeout(r, 1100));
    // An old sign-in may still sign out (a live write otherwise needs a recent one).
    const old = await resign(session.accessToken, { auth_time: Math.floor(Date.now() / 1000) - 40 * 60 });
    const out = await sessionApi(old, 'live', 'POST', '/me/sign-out', {});
    expect(out.status, out.text).toBe(200);
    expect(out.body.member_id).toBe(p.member_id);
    for (const token of [session.accessToken, other.accessToken]) {
      for (const env of ['sandbox', 'live'] as const) {
        const r = await api('GET', '/me', { headers: sessionHeaders(token, env) });
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('auth.session.invalid');
      }
    }
    // The partner's keys are not sessions: they keep working; a new sign-in works.
    expect((await api('GET', '/me', { key: p.test_key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const again = await signIn(user);
    expect((await api('GET', '/me', { headers: sessionHeaders(again, 'live') })).status).toBe(200);
  });

  it('a sandbox key cannot end live sessions: POST /me/sign-out with sk_test_ is a 403, with a signed live key it signs out', async () => {
    const p = await newPartner();
    const { session } = await consoleAdmin(p);
    await new Promise((r) => setTimeout(r, 1100));
    const refused = await write('POST', '/me/sign-out', p.test_key, {});
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ code: 'auth.environment.live_required', details: { environment: 'test' } });
    // Nothing changed: the session still works in both environments.
    for (const env of ['sandbox', 'live'] as const) expect((await api('GET', '/me', { headers: sessionHeaders(session, env) })).status).toBe(200);
    const out = await write('POST', '/me/sign-out', p.live_key, {});
    expect(out.status, out.text).toBe(200);
    expect((await api('GET', '/me', { headers: sessionHeaders(session, 'live') })).body.code).toBe('auth.session.invalid');
    // The key itself keeps working.
    expect((await api('GET', '/me', { key: p.live_key })).status).toBe(200);
  });

  it('a TOTP sign-in refreshes (auth_time and origin_jti kept); a sign-out ends its own sign-in even within the same second', async () => {
    const p = await newPartner();
    const { user } = await consoleAdmin(p);
    // Every sign-in after enrolment answers a TOTP challenge; its refresh token must work.
    const s = await signIn(user);
    const signedIn = decodeJwt(s.accessToken);
    expect(signedIn.origin_jti).toEqual(expect.any(String));
    const ClientId = await consoleClientId();
    const refreshed = await cognito('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId, AuthParameters: { REFRESH_TOKEN: s.refreshToken } });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(decodeJwt(refreshed.body.AuthenticationResult.AccessToken)).toMatchObject({ auth_time: signedIn.auth_time, origin_jti: signedIn.origin_jti });
    const other = await signIn(user);
    const out = await sessionApi(s, 'live', 'POST', '/me/sign-out', {});
    expect(out.status, out.text).toBe(200);
    // Tokens whose sign-in is in the sign-out's very second: the one that signed out is ended, another sign-in of that second is not.
    const second = Math.floor(Date.parse(out.body.sessions_ended_at) / 1000);
    const same = await resign(s.accessToken, { auth_time: second });
    const sameSecondOther = await resign(other.accessToken, { auth_time: second });
    expect((await api('GET', '/me', { headers: sessionHeaders(same, 'live') })).body.code).toBe('auth.session.invalid');
    expect((await api('GET', '/me', { headers: sessionHeaders(sameSecondOther, 'live') })).status).toBe(200);
  });

  it("answers CORS for the console's origin only (its own, not the API's), exposing what the console reads", async () => {
    const origin = new URL(stackRuntime().consoleUrl).origin;
    expect(origin).not.toBe(new URL(baseUrl()).origin);
    const ok = await fetch(`${baseUrl()}/me`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, x-environment' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(origin);
    expect(ok.headers.get('access-control-allow-headers')).toContain('x-environment');
    // The answer itself carries the configured headers, as API Gateway adds them: the console reads the request id of an error.
    const answer = await fetch(`${baseUrl()}/me`, { headers: { origin } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
    expect(answer.headers.get('access-control-expose-headers')?.split(', ')).toEqual(CONSOLE_CORS.exposeHeaders.map((h) => h.toLowerCase()));
    for (const other of ['https://evil.example', new URL(baseUrl()).origin]) {
      const refused = await fetch(`${baseUrl()}/me`, { method: 'OPTIONS', headers: { origin: other, 'access-control-request-method': 'GET' } });
      expect(refused.headers.get('access-control-allow-origin'), other).toBeNull();
    }
  });
});
