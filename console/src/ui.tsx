import { type ReactNode, type SelectHTMLAttributes, useEffect, useId, useRef, useState } from 'react';
import { ApiError } from './api';
import { SessionEndedError } from './session';
import { DATE_TIME_OPTIONS } from './time';
import type { Money } from './types';

/** Long work: a spinner with words, announced politely. */
export function Spinner({ label }: { label: string }) {
  return (
    <p className="spinner" role="status">
      <span className="spinner-icon" aria-hidden="true" />
      {label}
    </p>
  );
}

/** A refusal or failure in the API's own words, with its request id for support. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error || error instanceof SessionEndedError) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      <p>{message}</p>
      {error instanceof ApiError && (error.requestId || error.code) ? (
        <p className="error-meta">
          {error.code ? <span>Code {error.code}</span> : null}
          {error.requestId ? <span>Request id {error.requestId}</span> : null}
        </p>
      ) : null}
    </div>
  );
}

/** A mutation's progress and outcome, next to the button that started it. */
export function Outcome({ pending, pendingLabel, error, success }: { pending: boolean; pendingLabel: string; error: unknown; success?: ReactNode }) {
  return (
    <div className="outcome" aria-live="polite">
      {pending ? <Spinner label={pendingLabel} /> : null}
      {!pending && error ? <ErrorNote error={error} /> : null}
      {!pending && !error && success ? <p className="success">{success}</p> : null}
    </div>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 4000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <span className="copy">
      <button
        type="button"
        className="secondary"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setState('copied'),
            () => setState('failed'),
          );
        }}
      >
        {label}
      </button>
      <span className="copy-status" aria-live="polite">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Could not copy: select the text and copy it.' : ''}
      </span>
    </span>
  );
}

/** A secret shown once (an API key, a signing secret): copy it now, it is never shown again. */
export function SecretOnce({ title, secret, note, onDone }: { title: string; secret: string | null; note: string; onDone: () => void }) {
  const headingId = useId();
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section className="secret-once" aria-labelledby={headingId} ref={ref} tabIndex={-1}>
      <h2 id={headingId}>{title}</h2>
      {secret ? (
        <>
          <p>{note}</p>
          <p className="secret-row">
            <code className="secret" data-testid="secret">
              {secret}
            </code>
            <CopyButton text={secret} label="Copy the secret" />
          </p>
        </>
      ) : (
        <p>This answer was a replay of an earlier request: the secret was shown only the first time.</p>
      )}
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}

/** A destructive action in two steps: the button, then "Confirm"/"Keep". */
export function ConfirmButton({
  label,
  context,
  question,
  confirmLabel,
  onConfirm,
  disabled,
}: {
  label: string;
  /** Said to screen readers after the label (which key, which member), when the row shows it already. */
  context?: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" className="danger-outline" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
        {context ? <span className="visually-hidden"> {context}</span> : null}
      </button>
    );
  }
  return (
    <fieldset className="confirm">
      <legend>{question}</legend>
      <button
        type="button"
        className="danger"
        ref={confirmRef}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Keep
      </button>
    </fieldset>
  );
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, DATE_TIME_OPTIONS);
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
/** The reader's zone by its IANA name (Africa/Casablanca), said in each time's tooltip with the instant in UTC. */
const timeZone = dateTimeFormat.resolvedOptions().timeZone;

/** An instant (ISO 8601), in the reader's time zone with the zone named. */
export function formatDateTime(value: string): string {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : dateTimeFormat.format(d);
}

export function DateTime({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  return (
    <time dateTime={value} title={`${value} (shown in ${timeZone})`}>
      {formatDateTime(value)}
    </time>
  );
}

/** A calendar date (YYYY-MM-DD), shown as written for that day wherever the reader is. */
export function DateOnly({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const d = new Date(`${value}T00:00:00Z`);
  return <time dateTime={value}>{Number.isNaN(d.getTime()) ? value : dateFormat.format(d)}</time>;
}

/**
 * An amount as the invoice PDF prints it: thousands grouped by a narrow no-break space ("1 300.00 MAD", shared/settlements/pdf.ts
 * printedAmount), and a no-break space before the currency, so an amount never wraps inside itself.
 */
export const money = (m: Money | null | undefined) => (m ? `${m.amount.replace(/\B(?=(\d{3})+\.)/g, '\u202f')}\u00a0${m.currency}` : '—');

const TONES: Record<string, string> = {
  CONFIRMED: 'good',
  ACTIVE: 'good',
  DELIVERED: 'good',
  SUCCEEDED: 'good',
  PAID: 'good',
  VISIBLE: 'good',
  COMPLETED: 'info',
  ISSUED: 'info',
  PENDING: 'warn',
  DRAFT: 'warn',
  INVITED: 'warn',
  CANCELLED: 'bad',
  FAILED: 'bad',
  DISABLED: 'bad',
  REVOKED: 'bad',
  HIDDEN: 'neutral',
};

/** A status in words with a colour that repeats them (never colour alone). */
export function Badge({ value }: { value: string }) {
  const tone = /^\d+$/.test(value) ? (Number(value) < 400 ? 'good' : 'bad') : (TONES[value] ?? 'neutral');
  return <span className={`badge badge-${tone}`}>{value.replace(/_/g, ' ')}</span>;
}

export function Pager({
  label,
  page,
  nextCursor,
  onNext,
  onPrevious,
}: {
  label: string;
  page: number;
  nextCursor: string | null | undefined;
  onNext: (cursor: string) => void;
  onPrevious: () => void;
}) {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={onPrevious}>
        Previous page
      </button>
      <span>Page {page}</span>
      <button type="button" className="secondary" disabled={!nextCursor} onClick={() => nextCursor && onNext(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}

let firstTitle = true;

/**
 * A page's heading, focused when the page opens so screen readers announce it; not on the first
 * page after a load, where the focus starts at the top (the skip link) as on any web page.
 */
export function PageTitle({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (firstTitle) {
      firstTitle = false;
      return;
    }
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function Details({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="details">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export const shortId = (id: string) => id.slice(0, 8);

/** A booking number linking its booking, never broken at its hyphens. */
export function BookingLink({ number }: { number: string }) {
  return (
    <a href={`#/bookings/${encodeURIComponent(number)}`} className="token">
      {number}
    </a>
  );
}

/**
 * A select with its label tied by id (a select inside its label would be named by the label and
 * its selected option together).
 */
export function SelectField({ label, hideLabel, ...props }: { label: ReactNode; hideLabel?: boolean } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <select id={id} {...props} />
    </div>
  );
}

/**
 * The skip link. With hash routing a plain #main link would change the route, so it moves the focus
 * itself (the target has tabIndex -1).
 */
export function SkipLink({ target, children }: { target: string; children: ReactNode }) {
  return (
    <a
      className="skip-link"
      href={`#${target}`}
      onClick={(e) => {
        e.preventDefault();
        document.getElementById(target)?.focus();
      }}
    >
      {children}
    </a>
  );
}
