import { type FormEvent, useEffect, useId, useState } from 'react';
import { type AuthStep, associateSoftwareToken, type ChallengeName, initiatePasswordAuth, respondToChallenge, verifySoftwareToken } from '../cognito';
import { startSession, useAuth } from '../session';
import { CopyButton, ErrorNote, PageTitle, SkipLink, Spinner } from '../ui';

type Step =
  | { kind: 'password' }
  | { kind: 'new-password'; session: string }
  | { kind: 'mfa-setup'; session: string; secret: string }
  | { kind: 'mfa-code'; session: string };

export const PASSWORD_POLICY = 'At least 12 characters, with an upper-case letter, a lower-case letter, a digit and a symbol.';

/** What a new password still lacks, in words; empty when it meets the pool's policy. */
export function passwordProblems(p: string): string[] {
  const out: string[] = [];
  if (p.length < 12) out.push('at least 12 characters');
  if (!/[A-Z]/.test(p)) out.push('an upper-case letter');
  if (!/[a-z]/.test(p)) out.push('a lower-case letter');
  if (!/[0-9]/.test(p)) out.push('a digit');
  if (!/[^A-Za-z0-9]/.test(p)) out.push('a symbol');
  return out;
}

export const totpUri = (email: string, secret: string) =>
  `otpauth://totp/Partner%20Travel:${encodeURIComponent(email)}?secret=${encodeURIComponent(secret)}&issuer=Partner%20Travel`;

/** The key as text, in groups of four, for those who cannot scan. */
export const groupedKey = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

export function SignIn() {
  const { notice } = useAuth();
  const [email, setEmail] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  /** Runs one call of the flow with its progress and its error shown. */
  async function run(label: string, fn: () => Promise<void>) {
    setBusy(label);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  }

  async function next(result: AuthStep, username: string) {
    if ('tokens' in result) {
      startSession(username, result.tokens);
      return;
    }
    const challenge: ChallengeName = result.challenge;
    if (challenge === 'NEW_PASSWORD_REQUIRED') setStep({ kind: 'new-password', session: result.session });
    else if (challenge === 'SOFTWARE_TOKEN_MFA') setStep({ kind: 'mfa-code', session: result.session });
    else {
      const { secretCode, session } = await associateSoftwareToken(result.session);
      setStep({ kind: 'mfa-setup', session, secret: secretCode });
    }
  }

  const restart = () => {
    setStep({ kind: 'password' });
    setError(null);
  };

  return (
    <div className="signin-page">
      <SkipLink target="signin-main">Skip to the sign-in form</SkipLink>
      <header className="signin-header">
        <p className="brand">Partner Travel console</p>
      </header>
      <main id="signin-main" className="signin-card" tabIndex={-1}>
        {step.kind === 'password' ? (
          <PasswordStep
            email={email}
            setEmail={setEmail}
            notice={notice}
            busy={busy}
            onSubmit={(password) =>
              run('Signing in…', async () => {
                const username = email.trim();
                await next(await initiatePasswordAuth(username, password), username);
              })
            }
          />
        ) : null}
        {step.kind === 'new-password' ? (
          <NewPasswordStep
            email={email.trim()}
            busy={busy}
            onSubmit={(password) =>
              run('Saving your new password…', async () => {
                await next(await respondToChallenge('NEW_PASSWORD_REQUIRED', step.session, { USERNAME: email.trim(), NEW_PASSWORD: password }), email.trim());
              })
            }
          />
        ) : null}
        {step.kind === 'mfa-setup' ? (
          <MfaSetupStep
            email={email.trim()}
            secret={step.secret}
            busy={busy}
            onSubmit={(code) =>
              run('Checking the code…', async () => {
                const session = await verifySoftwareToken(step.session, code);
                await next(await respondToChallenge('MFA_SETUP', session, { USERNAME: email.trim() }), email.trim());
              })
            }
          />
        ) : null}
        {step.kind === 'mfa-code' ? (
          <CodeStep
            busy={busy}
            onSubmit={(code) =>
              run('Checking the code…', async () => {
                await next(
                  await respondToChallenge('SOFTWARE_TOKEN_MFA', step.session, { USERNAME: email.trim(), SOFTWARE_TOKEN_MFA_CODE: code }),
                  email.trim(),
                );
              })
            }
          />
        ) : null}
        <div aria-live="polite">{busy ? <Spinner label={busy} /> : null}</div>
        <ErrorNote error={error} />
        {step.kind !== 'password' ? (
          <p>
            <button type="button" className="link-button" onClick={restart}>
              Start again with another e-mail
            </button>
          </p>
        ) : null}
      </main>
    </div>
  );
}

function PasswordStep({
  email,
  setEmail,
  notice,
  busy,
  onSubmit,
}: {
  email: string;
  setEmail: (s: string) => void;
  notice: { message: string; detail?: string } | null;
  busy: string | null;
  onSubmit: (password: string) => void;
}) {
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(password);
  };
  return (
    <>
      <PageTitle>Sign in</PageTitle>
      {notice ? (
        <div className="notice" role="status">
          <p>{notice.message}</p>
          {notice.detail ? <p className="notice-detail">{notice.detail}</p> : null}
        </div>
      ) : null}
      <form onSubmit={submit} className="stack">
        <label>
          E-mail
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={!!busy}>
          Sign in
        </button>
      </form>
      <p className="muted">New to the console? Use the temporary password from your invitation e-mail.</p>
    </>
  );
}

function NewPasswordStep({ email, busy, onSubmit }: { email: string; busy: string | null; onSubmit: (password: string) => void }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const policyId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const missing = passwordProblems(password);
    if (missing.length) return setProblem(`The new password needs ${missing.join(', ')}.`);
    if (password !== again) return setProblem('The two passwords differ. Type the same password twice.');
    setProblem(null);
    onSubmit(password);
  };
  return (
    <>
      <PageTitle>Choose a new password</PageTitle>
      <p>Your temporary password worked. Choose the password you will sign in with from now on.</p>
      <form onSubmit={submit} className="stack">
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        <label>
          New password
          <input
            type="password"
            name="new-password"
            autoComplete="new-password"
            required
            aria-describedby={policyId}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <p id={policyId} className="hint">
          {PASSWORD_POLICY}
        </p>
        <label>
          New password, again
          <input type="password" name="new-password-again" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
        </label>
        {problem ? (
          <p className="error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" disabled={!!busy}>
          Save the new password
        </button>
      </form>
    </>
  );
}

function CodeField({ value, onChange, describedBy }: { value: string; onChange: (s: string) => void; describedBy?: string }) {
  return (
    <label>
      6-digit code
      <input
        type="text"
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        aria-describedby={describedBy}
        value={value}
        onChange={(e) => onChange(e.target.value.replace(/\D/g, ''))}
      />
    </label>
  );
}

function MfaSetupStep({ email, secret, busy, onSubmit }: { email: string; secret: string; busy: string | null; onSubmit: (code: string) => void }) {
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState('');
  useEffect(() => {
    let alive = true;
    // The QR code library loads only here, at enrolment.
    void import('qrcode')
      .then((m) => m.toDataURL(totpUri(email, secret), { margin: 1, width: 208, errorCorrectionLevel: 'M' }))
      .then((url) => alive && setQr(url))
      .catch(() => alive && setQr(''));
    return () => {
      alive = false;
    };
  }, [email, secret]);
  return (
    <>
      <PageTitle>Set up two-step verification</PageTitle>
      <p>Every member signs in with a password and a code from an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password…).</p>
      <ol className="steps">
        <li>
          <h2>Scan this QR code with your authenticator app</h2>
          {qr ? (
            <img className="qr" src={qr} width={208} height={208} alt={`QR code that adds Partner Travel (${email}) to an authenticator app`} />
          ) : qr === null ? (
            <Spinner label="Drawing the QR code…" />
          ) : (
            <p>The QR code could not be drawn: type the key below instead.</p>
          )}
        </li>
        <li>
          <h2>Or type this key into the app</h2>
          <p className="secret-row">
            <code className="secret totp-key" data-testid="totp-secret" data-secret={secret}>
              {groupedKey(secret)}
            </code>
            <CopyButton text={secret} label="Copy the key" />
          </p>
          <p className="hint">Choose a time-based key (TOTP), 6 digits, every 30 seconds. Spaces do not matter.</p>
        </li>
        <li>
          <h2>Enter the code the app shows</h2>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              onSubmit(code);
            }}
          >
            <CodeField value={code} onChange={setCode} />
            <button type="submit" disabled={!!busy}>
              Verify and sign in
            </button>
          </form>
        </li>
      </ol>
    </>
  );
}

function CodeStep({ busy, onSubmit }: { busy: string | null; onSubmit: (code: string) => void }) {
  const [code, setCode] = useState('');
  const hintId = useId();
  return (
    <>
      <PageTitle>Enter your verification code</PageTitle>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit(code);
        }}
      >
        <p id={hintId} className="hint">
          Open your authenticator app and type the 6-digit code it shows for Partner Travel.
        </p>
        <CodeField value={code} onChange={setCode} describedBy={hintId} />
        <button type="submit" disabled={!!busy}>
          Verify
        </button>
      </form>
    </>
  );
}

export { CodeField };
