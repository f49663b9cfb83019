import { type UseMutationResult, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call } from '../api';
import { config } from '../config';
import { useApiQuery, useEnv, useWrite } from '../hooks';
import { QueryView } from '../lists';
import { useCan } from '../me';
import type { SandboxClock } from '../types';
import { DateTime, Details, formatDateTime, Outcome } from '../ui';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How far the clock is ahead of real time, to the minute: "3 days 4 hours ahead of real time". */
export function aheadInWords(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes === 0) return seconds > 0 ? 'less than a minute ahead of real time' : 'in step with real time';
  const parts: [number, string][] = [
    [Math.floor(minutes / 1440), 'day'],
    [Math.floor((minutes % 1440) / 60), 'hour'],
    [minutes % 60, 'minute'],
  ];
  const words = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return `${words.join(' ')} ahead of real time`;
}

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
          <div className="row">
            <button type="button" disabled={busy} onClick={() => advance.mutate(new Date(now + HOUR).toISOString())}>
              Advance 1 hour
            </button>
            <button type="button" disabled={busy} onClick={() => advance.mutate(new Date(now + DAY).toISOString())}>
              Advance 1 day
            </button>
            <button type="button" disabled={busy} onClick={() => advance.mutate(monthStart.toISOString())}>
              Advance to the 1st of next month
            </button>
          </div>
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
