import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, lazy, type ReactNode, Suspense, useEffect, useRef, useState } from 'react';
import { type ApiError, call, setReauthenticator } from './api';
import { initiatePasswordAuth, respondToChallenge } from './cognito';
import { href, useApiQuery, useRoute, useSwitchEnvironment } from './hooks';
import { MeContext } from './me';
import { CodeField, SignIn } from './pages/SignIn';
import { type Environment, endSession, signOut, startSession, useAuth } from './session';
import { aheadInWords } from './time';
import { type Me, ROLE_NAMES } from './types';
import { ErrorNote, PageTitle, SkipLink, Spinner } from './ui';

const Overview = lazy(() => import('./pages/Overview'));
const Bookings = lazy(() => import('./pages/Bookings'));
const Settlements = lazy(() => import('./pages/Settlements'));
const Webhooks = lazy(() => import('./pages/Webhooks'));
const ApiKeys = lazy(() => import('./pages/ApiKeys'));
const Team = lazy(() => import('./pages/Team'));
const Reviews = lazy(() => import('./pages/Reviews'));
const SandboxTools = lazy(() => import('./pages/SandboxTools'));
const Requests = lazy(() => import('./pages/Requests'));

interface Section {
  path: string;
  label: string;
  /** The scopes that open the page (any of them). */
  scopes: string[];
  sandboxOnly?: boolean;
  Page: React.ComponentType<{ route: string[] }>;
}

export const SECTIONS: Section[] = [
  { path: 'overview', label: 'Overview', scopes: ['meta:read'], Page: Overview },
  { path: 'bookings', label: 'Bookings', scopes: ['bookings:read'], Page: Bookings },
  { path: 'settlements', label: 'Settlements', scopes: ['settlements:read'], Page: Settlements },
  { path: 'webhooks', label: 'Webhooks', scopes: ['webhooks:read'], Page: Webhooks },
  { path: 'api-keys', label: 'API keys', scopes: ['keys:manage'], Page: ApiKeys },
  { path: 'team', label: 'Team', scopes: ['team:read'], Page: Team },
  { path: 'reviews', label: 'Reviews', scopes: ['reviews:read'], Page: Reviews },
  { path: 'requests', label: 'Requests', scopes: ['audit:read'], Page: Requests },
  // bookings:read: every role reads the sandbox clock; only bookings:write moves it.
  { path: 'sandbox', label: 'Sandbox tools', scopes: ['bookings:read', 'bookings:write', 'settlements:write'], sandboxOnly: true, Page: SandboxTools },
];

const visible = (s: Section, me: Me, env: Environment) => s.scopes.some((x) => me.scopes.includes(x)) && (!s.sandboxOnly || env === 'sandbox');

export function App() {
  const { session } = useAuth();
  const client = useQueryClient();
  // Nothing of a session outlives it: the next member starts from an empty cache.
  useEffect(() => {
    if (!session) {
      client.clear();
      client.getMutationCache().clear();
    }
  }, [session, client]);
  if (!session) return <SignIn />;
  return <Shell email={session.email} />;
}

function Shell({ email }: { email: string }) {
  const { environment } = useAuth();
  const route = useRoute();
  const me = useApiQuery(['me'], (env, signal) => call(env, 'getMe', { signal }) as Promise<Me>);
  const section = SECTIONS.find((s) => s.path === (route[0] ?? 'overview'));

  let content: ReactNode;
  if (me.isPending) content = <Spinner label="Loading your workspace…" />;
  else if (me.isError)
    content = (
      <>
        <PageTitle>The console could not load your workspace</PageTitle>
        <ErrorNote error={me.error} />
        <button type="button" onClick={() => void me.refetch()}>
          Try again
        </button>
      </>
    );
  else if (!section)
    content = (
      <>
        <PageTitle>Page not found</PageTitle>
        <p>
          There is no page at this address. <a href={href('overview')}>Go to the overview</a>.
        </p>
      </>
    );
  else if (!visible(section, me.data, environment))
    content = (
      <>
        <PageTitle>{section.label}</PageTitle>
        <p>
          {section.sandboxOnly && environment !== 'sandbox'
            ? 'The sandbox tools work only in the sandbox. Switch to Sandbox above to use them.'
            : `Your role (${ROLE_NAMES[me.data.member.role]}) does not give access to this page.`}{' '}
          <a href={href('overview')}>Go to the overview</a>.
        </p>
      </>
    );
  else
    content = (
      <Suspense fallback={<Spinner label={`Loading ${section.label.toLowerCase()}…`} />}>
        <section.Page route={route.slice(1)} />
      </Suspense>
    );

  return (
    <MeContext.Provider value={me.data ?? null}>
      <SkipLink target="main">Skip to main content</SkipLink>
      <header>
        {environment === 'sandbox' ? (
          <p className="sandbox-banner">
            <strong>Sandbox</strong>: you are viewing test data. Nothing here reaches production or your customers.
            {me.data?.scopes.includes('bookings:read') ? <ClockAhead /> : null}
          </p>
        ) : null}
        <div className={`topbar env-${environment}`}>
          <p className="brand">
            Partner Travel console
            {me.data ? <span className="partner-name">{me.data.partner.name}</span> : null}
          </p>
          <EnvSwitch current={environment} />
          <div className="account">
            <span>
              {email}
              {me.data ? <span className="role"> · {ROLE_NAMES[me.data.member.role]}</span> : null}
            </span>
            <button type="button" className="secondary" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <div className="frame">
        <nav className="sidenav" aria-label="Console">
          <ul>
            {me.data
              ? SECTIONS.filter((s) => visible(s, me.data, environment)).map((s) => (
                  <li key={s.path}>
                    <a href={href(s.path)} aria-current={section?.path === s.path ? 'page' : undefined}>
                      {s.label}
                    </a>
                  </li>
                ))
              : null}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {content}
        </main>
      </div>
      <ReauthDialog email={email} />
    </MeContext.Provider>
  );
}

/**
 * While the sandbox clock runs ahead of real time, the banner says so on every page: what a member reads (a quote's
 * expiry, a trip completed) is at the sandbox's time, which a teammate may have moved.
 */
function ClockAhead() {
  const clock = useApiQuery(['test-helpers', 'clock'], (env, signal) => call(env, 'getSandboxClock', { signal }), {
    refetchInterval: (q) => (q.state.data?.status === 'advancing' ? 1000 : 60_000),
  });
  const c = clock.data;
  if (!c || c.advanced_by_seconds < 60) return null;
  return (
    <>
      {' '}
      <strong className="clock-ahead">
        Sandbox clock {aheadInWords(c.advanced_by_seconds)}
        {c.status === 'advancing' ? ', advancing' : ''}.
      </strong>{' '}
      <a href={href('sandbox')}>See the clock</a>
    </>
  );
}

/** Sandbox or live, always in view (a coloured banner in the sandbox). */
function EnvSwitch({ current }: { current: Environment }) {
  const change = useSwitchEnvironment();
  return (
    <fieldset className="env-switch">
      <legend>Environment</legend>
      {(['sandbox', 'live'] as const).map((env) => (
        <label key={env} className={env === current ? 'on' : undefined}>
          <input type="radio" name="environment" value={env} checked={env === current} onChange={() => change(env)} />
          {env === 'sandbox' ? 'Sandbox' : 'Live'}
        </label>
      ))}
    </fieldset>
  );
}

interface PendingReauth {
  refusal: ApiError;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * A live write long after the sign-in is refused (403 auth.session.reauthentication_required):
 * the member confirms it is them (password and code), and the write is sent again with its
 * Idempotency-Key.
 */
function ReauthDialog({ email }: { email: string }) {
  const [pending, setPending] = useState<PendingReauth | null>(null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    setReauthenticator((refusal) => new Promise<void>((resolve, reject) => setPending({ refusal, resolve, reject })));
    return () => setReauthenticator(undefined);
  }, []);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (pending && !d.open) d.showModal();
    if (!pending && d.open) d.close();
  }, [pending]);

  const finish = (ok: boolean) => {
    if (!pending) return;
    if (ok) pending.resolve();
    else pending.reject(pending.refusal);
    setPending(null);
    setPassword('');
    setCode('');
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      let step = await initiatePasswordAuth(email, password);
      if ('challenge' in step && step.challenge === 'SOFTWARE_TOKEN_MFA') {
        step = await respondToChallenge('SOFTWARE_TOKEN_MFA', step.session, { USERNAME: email, SOFTWARE_TOKEN_MFA_CODE: code });
      }
      if (!('tokens' in step)) {
        endSession('Your account needs to be set up again; sign in.');
        return;
      }
      startSession(email, step.tokens);
      finish(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="reauth-title" onCancel={() => finish(false)}>
      <form onSubmit={submit} className="stack">
        <h2 id="reauth-title">Confirm it is you</h2>
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        <p>
          Changes in live need a sign-in from the last 15 minutes. Enter your password and a code from your authenticator app; the change is then sent again.
        </p>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <CodeField value={code} onChange={setCode} />
        <div aria-live="polite">{busy ? <Spinner label="Checking…" /> : null}</div>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="submit" disabled={busy}>
            Confirm and continue
          </button>
          <button type="button" className="secondary" onClick={() => finish(false)}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
