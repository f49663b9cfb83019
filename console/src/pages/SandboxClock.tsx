import { type UseMutationResult, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call } from '../api';
import { config } from '../config';
import { useApiQuery, useEnv, useWrite } from '../hooks';
import { QueryView } from '../lists';
import { useCan } from '../me';
import { aheadInWords } from '../time';
import type { SandboxClock } from '../types';
import { DateTime, Details, formatDateTime, Outcome } from '../ui';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Re-renders every `ms`: a ready clock runs with real time between two reads. */
function useTick(ms: number) {
  const [, setTick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
}

/**
 * The sandbox clock (docs/guides/sandbox.md, "The sandbox clock"): its time, how far ahead, its status, and,
 * for a member who may write bookings, advances of an hour, a day, or to the next month's 1st. An advance
 * that answers `advancing` is read every second until ready.
 */
export function SandboxClockSection() {
  const can = useCan();
  const env = useEnv();
  const client = useQueryClient();
  useTick(30_000);
  const clock = useApiQuery(['test-helpers', 'clock'], (e, signal) => call(e, 'getSandboxClock', { signal }), {
    refetchInterval: (q) => (q.state.data?.status === 'advancing' ? 1000 : false),
  });
  const advance = useWrite((to: string, { env: e, idempotencyKey }) => call(e, 'advanceSandboxClock', { body: { to }, idempotencyKey }));
  // An advance that ended after its answer: what it recorded (trips completed, months issued) is read again.
  const status = clock.data?.status;
  const previous = useRef(status);
  useEffect(() => {
    if (previous.current === 'advancing' && status === 'ready') void client.invalidateQueries({ queryKey: [env] });
    previous.current = status;
  }, [status, client, env]);

  return (
    <section aria-labelledby="sb-clock">
      <h2 id="sb-clock">The sandbox clock</h2>
      <p>
        Every rule of your sandbox reads this clock. Moving it forward plays what falls due on the way, each at its own time and with its webhooks: quotes
        expire, trips complete, the 1st of a month issues the settlement, webhook retries are attempted and failing endpoints are disabled.{' '}
        <a href={`${config().apiBaseUrl}/docs/guides/sandbox#the-sandbox-clock`}>What moves with the clock</a>.
      </p>
      <QueryView query={clock} loading="Reading the sandbox clock…">
        {(c) => <ClockView clock={c} readAt={clock.dataUpdatedAt} advance={can('bookings:write') ? advance : undefined} />}
      </QueryView>
    </section>
  );
}

function ClockView({
  clock,
  readAt,
  advance,
}: {
  clock: SandboxClock;
  readAt: number;
  /** Absent for a member who may not write bookings: the clock without its buttons. */
  advance?: UseMutationResult<SandboxClock, Error, string>;
}) {
  const advancing = clock.status === 'advancing';
  // Ready, the clock has run with real time since it was read.
  const now = advancing ? Date.parse(clock.now) : Date.parse(clock.now) + Math.max(0, Date.now() - readAt);
  // The service's own month boundary: the browser's time-zone data for Morocco may differ from the service's.
  const monthStart = new Date(clock.next_month_starts_at);
  const busy = advancing || Boolean(advance?.isPending);
  const target = advance?.variables ?? clock.advancing_to;
  return (
    <>
      <Details
        items={[
          ['Sandbox time', <DateTime key="now" value={new Date(now).toISOString()} />],
          ['Advanced by', aheadInWords(clock.advanced_by_seconds)],
          [
            'Status',
            advancing ? (
              <>
                Advancing to <DateTime value={clock.advancing_to} />: playing what falls due
              </>
            ) : (
              'Ready: runs with real time'
            ),
          ],
        ]}
      />
      {advance ? (
        <>
          <AdvanceButtons
            disabled={busy}
            onConfirm={(to) => advance.mutate(to)}
            choices={[
              ['Advance 1 hour', new Date(now + HOUR).toISOString()],
              ['Advance 1 day', new Date(now + DAY).toISOString()],
              ['Advance to the 1st of next month', monthStart.toISOString()],
            ]}
          />
          <p className="muted">
            The 1st of next month is <DateTime value={monthStart.toISOString()} /> (00:00 in Morocco): the month's settlement is issued then.
          </p>
          <Outcome
            pending={busy}
            pendingLabel={target ? `Advancing the clock to ${formatDateTime(target)}: playing what falls due…` : 'Advancing the clock…'}
            error={advance.error}
            success={
              advance.data ? (
                <>
                  The clock is ready at <DateTime value={clock.now} />: everything due on the way is recorded.
                </>
              ) : null
            }
          />
        </>
      ) : (
        <>
          <p className="muted">Your role reads the clock; moving it takes a role that writes bookings.</p>
          {advancing ? <Outcome pending pendingLabel="An advance of the clock is playing…" error={null} /> : null}
        </>
      )}
    </>
  );
}

/**
 * The advances offered, each confirmed first: the clock is the whole team's sandbox clock and never goes back, so the
 * question names the instant it moves to (in the reader's zone) and that every member's sandbox moves with it.
 */
function AdvanceButtons({ choices, disabled, onConfirm }: { choices: [string, string][]; disabled: boolean; onConfirm: (to: string) => void }) {
  const [asking, setAsking] = useState<[string, string] | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (asking) {
    const [label, to] = asking;
    return (
      <fieldset className="confirm">
        <legend>
          Move the sandbox clock to <DateTime value={to} />? This moves your whole team's sandbox, for every member, for good: the clock never goes back, and
          everything due on the way happens, with its webhooks.
        </legend>
        <button
          type="button"
          ref={confirmRef}
          onClick={() => {
            setAsking(null);
            onConfirm(to);
          }}
        >
          Move the team's sandbox clock
        </button>
        <button type="button" className="secondary" onClick={() => setAsking(null)}>
          Keep the clock where it is
        </button>
        <span className="visually-hidden">{label}</span>
      </fieldset>
    );
  }
  return (
    <div className="row">
      {choices.map(([label, to]) => (
        <button key={label} type="button" disabled={disabled} onClick={() => setAsking([label, to])}>
          {label}
        </button>
      ))}
    </div>
  );
}
