import { useSyncExternalStore } from 'react';
import { type AuthenticationResult, globalSignOut, refreshTokens, tokenClaims } from './cognito';
import { config } from './config';

/** A signed-in member's tokens, kept in sessionStorage (this tab only, gone when it closes). */
export interface Session {
  email: string;
  accessToken: string;
  idToken: string;
  refreshToken: string | null;
  /** When the access token expires (ms since the epoch), from its exp claim. */
  expiresAt: number;
}

export type Environment = 'sandbox' | 'live';

export interface Notice {
  message: string;
  detail?: string;
}

export const SESSION_ENDED = 'Your session has ended; sign in again.';

const SESSION_KEY = 'console.session';
const ENV_KEY = 'console.environment';
/** Refresh this long before the access token expires, so no request carries a token about to lapse. */
const EARLY_MS = 30_000;

/** The session ended (expired, signed out, refused by the API): the app is back at sign-in. */
export class SessionEndedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionEndedError';
  }
}

interface State {
  session: Session | null;
  /** Shown on the sign-in page: why the last session ended (and the API's own words, when it said). */
  notice: Notice | null;
  environment: Environment;
}

function read(): State {
  let session: Session | null = null;
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    session = raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    session = null;
  }
  const env = sessionStorage.getItem(ENV_KEY);
  return { session, notice: null, environment: env === 'live' ? 'live' : 'sandbox' };
}

let state: State = read();
const listeners = new Set<() => void>();
let refreshing: Promise<Session> | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;

function set(next: Partial<State>) {
  state = { ...state, ...next };
  if (state.session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(state.session));
  else sessionStorage.removeItem(SESSION_KEY);
  sessionStorage.setItem(ENV_KEY, state.environment);
  schedule();
  for (const l of listeners) l();
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export const useAuth = () => useSyncExternalStore(subscribe, () => state);
export const currentSession = () => state.session;
export const currentEnvironment = () => state.environment;

function expiryOf(accessToken: string, expiresIn: number): number {
  const exp = tokenClaims(accessToken).exp;
  return typeof exp === 'number' ? exp * 1000 : Date.now() + expiresIn * 1000;
}

export function startSession(email: string, tokens: AuthenticationResult) {
  set({
    notice: null,
    session: {
      email,
      accessToken: tokens.AccessToken,
      idToken: tokens.IdToken,
      refreshToken: tokens.RefreshToken ?? state.session?.refreshToken ?? null,
      expiresAt: expiryOf(tokens.AccessToken, tokens.ExpiresIn),
    },
  });
}

/**
 * Back to the sign-in page, which shows `message` (and `detail`, the API's words, when given). The next sign-in
 * starts in the sandbox, whichever environment this session ended in: a bank's staff choose live each time they
 * mean it, never by a choice left from an earlier session (docs/guides/console.md, "Sandbox and live").
 */
export function endSession(message: string | null, detail?: string) {
  refreshing = null;
  set({ session: null, environment: 'sandbox', notice: message ? { message, ...(detail ? { detail } : {}) } : null });
}

export function setEnvironment(environment: Environment) {
  set({ environment });
}

/** POST /v1/me/sign-out: the API refuses every access token of this member signed in until now. */
async function endApiSessions(accessToken: string) {
  // The sandbox: a sign-out needs no recent sign-in anywhere, and members are partner-wide.
  await fetch(`${config().apiBaseUrl}/me/sign-out`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'x-environment': 'sandbox', 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
    body: '{}',
  });
}

/**
 * Signs out everywhere: the API ends every session of the member (its access
 * tokens stop working at once), GlobalSignOut revokes the refresh tokens; the
 * tokens are forgotten even if a call failed.
 */
export async function signOut() {
  const s = state.session;
  if (s) {
    await endApiSessions(s.accessToken).catch(() => undefined);
    await globalSignOut(s.accessToken).catch(() => undefined);
  }
  endSession('You are signed out.');
}

/** Once: REFRESH_TOKEN_AUTH; a failure ends the session. Concurrent callers share the one attempt. */
function refresh(s: Session): Promise<Session> {
  refreshing ??= (async () => {
    if (!s.refreshToken) throw new SessionEndedError(SESSION_ENDED);
    try {
      const tokens = await refreshTokens(s.refreshToken);
      startSession(s.email, tokens);
      return state.session!;
    } catch {
      throw new SessionEndedError(SESSION_ENDED);
    }
  })().then(
    (ok) => {
      refreshing = null;
      return ok;
    },
    (e: unknown) => {
      endSession(SESSION_ENDED);
      throw e;
    },
  );
  return refreshing;
}

/** A valid access token, refreshed once if it expired; throws SessionEndedError when there is none. */
export async function accessToken(): Promise<string> {
  const s = state.session;
  if (!s) throw new SessionEndedError(state.notice?.message ?? SESSION_ENDED);
  if (Date.now() < s.expiresAt - EARLY_MS) return s.accessToken;
  return (await refresh(s)).accessToken;
}

let started = false;

/** Starts keeping the session alive; called once the configuration (the Cognito endpoint) is loaded. */
export function resumeSession() {
  started = true;
  schedule();
}

/** Refreshes as the token lapses, so an idle console meets the end of its session on time. */
function schedule() {
  if (!started) return;
  clearTimeout(timer);
  const s = state.session;
  if (!s) return;
  const wait = Math.max(0, s.expiresAt - EARLY_MS - Date.now());
  // setTimeout's delay is a signed 32-bit number of ms.
  timer = setTimeout(() => void refresh(s).catch(() => undefined), Math.min(wait, 2 ** 31 - 1));
}
