import { type FormEvent, useState } from 'react';
import { WEBHOOK_EVENT_TYPES } from '../../../sdk/src/generated/events';
import { ApiError, call } from '../api';
import { href, navigate, useApiQuery, useCursorPages, useWrite } from '../hooks';
import { Checks, DataTable, FilterForm, PagedTable, QueryView, useFilters } from '../lists';
import { useCan } from '../me';
import type { EventType, WebhookDelivery, WebhookDeliveryDetail, WebhookEndpoint } from '../types';
import { Badge, ConfirmButton, DateTime, Details, Outcome, PageTitle, SecretOnce, SelectField, shortId } from '../ui';

const EVENT_TYPES = WEBHOOK_EVENT_TYPES as readonly EventType[];
const eventsLabel = (types: EventType[]) => (types.length === EVENT_TYPES.length ? 'All events' : types.join(', '));

export default function Webhooks({ route }: { route: string[] }) {
  if (route[0] === 'deliveries') return route[1] ? <DeliveryDetail id={route[1]} /> : <DeliveryLog />;
  if (route[0]) return <EndpointDetail id={route[0]} />;
  return <Endpoints />;
}

function EventTypesField({ value, onChange }: { value: EventType[]; onChange: (v: EventType[]) => void }) {
  return <Checks legend="Events it receives" className="checks" options={EVENT_TYPES} value={value} onChange={onChange} labelOf={(t) => <code>{t}</code>} />;
}

function Endpoints() {
  const can = useCan();
  const q = useApiQuery(['webhooks', 'list'], (env, signal) => call(env, 'listWebhooks', { signal }));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(WebhookEndpoint & { signing_secret: string | null }) | null>(null);
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p>
        Endpoints of yours that receive signed events. <a href={href('webhooks', 'deliveries')}>Open the delivery log</a>.
      </p>
      {created ? (
        <SecretOnce
          title="Signing secret of the new endpoint"
          secret={created.signing_secret}
          note="Store it in your receiver's configuration now: it verifies X-Service-Signature, and it is shown only this once."
          onDone={() => {
            setCreated(null);
            navigate('webhooks', created.id);
          }}
        />
      ) : null}
      {can('webhooks:write') && !created ? (
        creating ? (
          <CreateEndpoint
            onCreated={(e) => {
              setCreating(false);
              setCreated(e);
            }}
            onCancel={() => setCreating(false)}
          />
        ) : (
          <p>
            <button type="button" onClick={() => setCreating(true)}>
              Add an endpoint
            </button>
          </p>
        )
      ) : null}
      <section aria-labelledby="wh-endpoints">
        <h2 id="wh-endpoints">Endpoints</h2>
        <QueryView query={q} loading="Loading endpoints…">
          {(list) =>
            list.data.length === 0 ? (
              <p>No endpoints in this environment yet.</p>
            ) : (
              <DataTable
                rows={list.data}
                rowKey={(e) => e.id}
                columns={[
                  {
                    header: 'URL',
                    cell: (e) => (
                      <>
                        <a href={href('webhooks', e.id)} className="break">
                          {e.url}
                        </a>
                        {e.description ? <div className="muted">{e.description}</div> : null}
                      </>
                    ),
                  },
                  { header: 'Events', cell: (e) => eventsLabel(e.event_types) },
                  { header: 'Status', cell: (e) => <EndpointHealth endpoint={e} /> },
                  { header: 'Last answer', cell: (e) => <LastAnswer endpoint={e} /> },
                  { header: 'Pending', numeric: true, cell: (e) => `${e.pending_deliveries}${list.pending_complete ? '' : '+'}` },
                  { header: 'Last delivery', cell: (e) => <DateTime value={e.last_delivery_at} /> },
                ]}
              />
            )
          }
        </QueryView>
      </section>
    </>
  );
}

/** The endpoint's status, and its failure streak: an ACTIVE endpoint whose every attempt fails is shown failing. */
function EndpointHealth({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  return (
    <>
      {e.status === 'ACTIVE' && e.failing_since ? <span className="badge badge-bad">FAILING</span> : <Badge value={e.status} />}
      {e.failing_since ? (
        <div className="muted">
          failing since <DateTime value={e.failing_since} />
        </div>
      ) : null}
      {e.disabled_reason === 'failing' ? <div className="muted">every delivery failed for 5 days</div> : null}
    </>
  );
}

/** The last HTTP status and what went wrong (a timeout has no status). */
function LastAnswer({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  if (e.last_http_status === null && !e.last_error) return <span className="muted">—</span>;
  return (
    <>
      {e.last_http_status === null ? null : `HTTP ${e.last_http_status}`}
      {e.last_error && e.last_error !== `HTTP ${e.last_http_status}` ? <div className="muted">{e.last_error}</div> : null}
    </>
  );
}

function CreateEndpoint({ onCreated, onCancel }: { onCreated: (e: WebhookEndpoint & { signing_secret: string | null }) => void; onCancel: () => void }) {
  const [url, setUrl] = useState('https://');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<EventType[]>([...EVENT_TYPES]);
  const create = useWrite(
    (body: { url: string; event_types: EventType[]; description?: string }, { env, idempotencyKey }) => call(env, 'createWebhook', { body, idempotencyKey }),
    (e) => onCreated(e),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ url: url.trim(), event_types: types, ...(description.trim() ? { description: description.trim() } : {}) });
  };
  return (
    <form className="panel stack" onSubmit={submit} aria-labelledby="wh-new">
      <h2 id="wh-new">New endpoint</h2>
      <label>
        URL (HTTPS, on a public address)
        <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      </label>
      <label>
        Description (optional)
        <input type="text" maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <EventTypesField value={types} onChange={setTypes} />
      <div className="actions">
        <button type="submit" disabled={create.isPending || types.length === 0}>
          Add the endpoint
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Outcome pending={create.isPending} pendingLabel="Adding the endpoint…" error={create.error} />
    </form>
  );
}

function EndpointDetail({ id }: { id: string }) {
  const can = useCan();
  const q = useApiQuery(['webhooks', 'one', id], (env, signal) => call(env, 'getWebhook', { path: { id }, signal }));
  return (
    <>
      <p>
        <a href={href('webhooks')}>← All endpoints</a>
      </p>
      <PageTitle>Webhook endpoint</PageTitle>
      <QueryView query={q} loading="Loading the endpoint…">
        {(e) => (
          <>
            <Details
              items={[
                [
                  'URL',
                  <span key="u" className="break">
                    {e.url}
                  </span>,
                ],
                ['Status', <EndpointHealth key="s" endpoint={e} />],
                ['Description', e.description ?? '—'],
                ['Events', eventsLabel(e.event_types)],
                ['Last answer', <LastAnswer key="a" endpoint={e} />],
                ['Last delivery', <DateTime key="l" value={e.last_delivery_at} />],
                ['Failing since', <DateTime key="f" value={e.failing_since} />],
                ['Created', <DateTime key="c" value={e.created_at} />],
              ]}
            />
            {can('webhooks:write') ? (
              <>
                <TestSend endpoint={e} />
                <Recover endpoint={e} />
                <RotateSecret endpoint={e} />
                <EditEndpoint endpoint={e} />
                <EndpointState endpoint={e} />
              </>
            ) : null}
            <section aria-labelledby="wh-deliveries">
              <h2 id="wh-deliveries">Deliveries to this endpoint</h2>
              <DeliveryTable endpointId={e.id} />
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}

function TestSend({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [type, setType] = useState<EventType>(endpoint.event_types[0] ?? 'booking.confirmed');
  const send = useWrite((body: { event_type: EventType }, { env, idempotencyKey }) =>
    call(env, 'testWebhook', { path: { id: endpoint.id }, body, idempotencyKey }),
  );
  const r = send.data;
  return (
    <section aria-labelledby="wh-test">
      <h2 id="wh-test">Send a test event</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          // Every test send is a new event: a new Idempotency-Key each time.
          send.reset();
          send.mutate({ event_type: type });
        }}
      >
        <SelectField label="Event type" value={type} onChange={(e) => setType(e.target.value as EventType)}>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </SelectField>
        <button type="submit" disabled={send.isPending}>
          Send a test event
        </button>
      </form>
      <Outcome
        pending={send.isPending}
        pendingLabel="Sending the test event and waiting for your endpoint's answer…"
        error={send.error}
        success={
          r ? (
            <>
              {r.delivered ? 'Delivered' : 'Not delivered'}: {r.http_status === null ? (r.error ?? 'no answer') : `HTTP ${r.http_status}`} in{' '}
              {r.response_time_ms} ms. <a href={href('webhooks', 'deliveries', r.delivery_id)}>See the delivery</a>
            </>
          ) : null
        }
      />
    </section>
  );
}

/** An instant as a datetime-local field shows it, in the browser's time zone, to the minute (floored: `since` then covers it). */
const localInput = (iso: string) => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** POST /webhooks/{id}/recover: re-send what failed since a time; a DISABLED endpoint must be enabled by the same call. */
function Recover({ endpoint }: { endpoint: WebhookEndpoint }) {
  const disabled = endpoint.status === 'DISABLED';
  const [since, setSince] = useState(() => localInput(endpoint.failing_since ?? new Date(Date.now() - 24 * 3600_000).toISOString()));
  const [enable, setEnable] = useState(disabled);
  const recover = useWrite((body: { since: string; enable: boolean }, { env, idempotencyKey }) =>
    call(env, 'recoverWebhook', { path: { id: endpoint.id }, body, idempotencyKey }),
  );
  const r = recover.data;
  return (
    <section aria-labelledby="wh-recover">
      <h2 id="wh-recover">Re-send failed deliveries</h2>
      <p>
        Every event whose deliveries to this endpoint since the time below all failed is sent again, now, once; retries still waiting are attempted now.
        {disabled ? ' This endpoint is disabled: it must be enabled to receive them.' : ''}
      </p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          recover.mutate({ since: new Date(since).toISOString(), enable });
        }}
      >
        <label>
          Failed since (your time zone)
          <input type="datetime-local" required value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
        {disabled ? (
          <label className="inline">
            <input type="checkbox" checked={enable} onChange={(e) => setEnable(e.target.checked)} /> Enable the endpoint first
          </label>
        ) : null}
        <div className="actions">
          <button type="submit" disabled={recover.isPending || !since || (disabled && !enable)}>
            Re-send failed deliveries
          </button>
        </div>
        <Outcome
          pending={recover.isPending}
          pendingLabel="Re-sending…"
          error={recover.error}
          success={
            r ? (
              <>
                {r.resent} event(s) re-sent, {r.brought_forward} waiting retr{r.brought_forward === 1 ? 'y' : 'ies'} attempted now
                {r.truncated ? '. More remain: re-send again with the same time.' : '.'}
              </>
            ) : null
          }
        />
      </form>
    </section>
  );
}

/** The overlaps offered for a rotation (the API takes any number of seconds up to 7 days). */
const OVERLAPS: [number, string][] = [
  [0, 'None: the current secret stops signing now (after a leak)'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [3 * 86_400, '3 days'],
  [7 * 86_400, '7 days'],
];

/** POST /webhooks/{id}/rotate-secret: the new secret shown once; while a rotation is open only a revocation (overlap 0) is allowed. */
function RotateSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const open = endpoint.secret_rotation;
  const [overlap, setOverlap] = useState(open ? 0 : 86_400);
  const [shown, setShown] = useState<string | null | undefined>(undefined);
  const rotate = useWrite(
    (body: { overlap_seconds: number }, { env, idempotencyKey }) => call(env, 'rotateWebhookSecret', { path: { id: endpoint.id }, body, idempotencyKey }),
    (e) => setShown(e.signing_secret),
  );
  if (shown !== undefined)
    return (
      <SecretOnce
        title="New signing secret"
        secret={shown}
        note={
          overlap > 0
            ? 'Store it in your receiver now: it is shown only this once. Until the overlap ends, deliveries carry a signature with each secret.'
            : 'Store it in your receiver now: it is shown only this once. The previous secret no longer signs anything.'
        }
        onDone={() => {
          setShown(undefined);
          rotate.reset();
        }}
      />
    );
  return (
    <section aria-labelledby="wh-rotate">
      <h2 id="wh-rotate">Rotate the signing secret</h2>
      {open ? (
        <p>
          A rotation is open: the previous secret signs too until <DateTime value={open.previous_secret_expires_at} />. Until then only a rotation without
          overlap is possible: it revokes every older secret at once.
        </p>
      ) : (
        <p>
          A new secret signs every delivery from now on; during the overlap the current one signs them too, so your receiver can switch without losing events.
        </p>
      )}
      <div className="row">
        <SelectField label="Overlap" value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
          {OVERLAPS.filter(([seconds]) => !open || seconds === 0).map(([seconds, label]) => (
            <option key={seconds} value={seconds}>
              {label}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="actions">
        <ConfirmButton
          label="Rotate the signing secret"
          question={overlap > 0 ? 'Mint a new signing secret now?' : 'Mint a new signing secret and revoke every older one now?'}
          confirmLabel="Rotate"
          disabled={rotate.isPending}
          onConfirm={() => rotate.mutate({ overlap_seconds: overlap })}
        />
      </div>
      <Outcome pending={rotate.isPending} pendingLabel="Rotating…" error={rotate.error} />
    </section>
  );
}

function EditEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const [types, setTypes] = useState<EventType[]>(endpoint.event_types);
  const save = useWrite((body: { url?: string; description?: string | null; event_types?: EventType[] }, { env, idempotencyKey }) =>
    call(env, 'updateWebhook', { path: { id: endpoint.id }, body, idempotencyKey }),
  );
  const changes = {
    ...(url.trim() !== endpoint.url ? { url: url.trim() } : {}),
    ...((description.trim() || null) !== endpoint.description ? { description: description.trim() || null } : {}),
    ...(JSON.stringify([...types].sort()) !== JSON.stringify([...endpoint.event_types].sort()) ? { event_types: types } : {}),
  };
  return (
    <section aria-labelledby="wh-edit">
      <h2 id="wh-edit">Edit</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(changes);
        }}
      >
        <label>
          URL
          <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
        </label>
        <label>
          Description
          <input type="text" maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <EventTypesField value={types} onChange={setTypes} />
        <div className="actions">
          <button type="submit" disabled={save.isPending || Object.keys(changes).length === 0 || types.length === 0}>
            Save the changes
          </button>
        </div>
        <Outcome pending={save.isPending} pendingLabel="Saving…" error={save.error} success={save.isSuccess ? 'Saved.' : null} />
      </form>
    </section>
  );
}

function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  const setStatus = useWrite((body: { status: 'ACTIVE' | 'DISABLED' }, { env, idempotencyKey }) =>
    call(env, 'updateWebhook', { path: { id: endpoint.id }, body, idempotencyKey }),
  );
  const remove = useWrite(
    (_: null, { env, idempotencyKey }) => call(env, 'deleteWebhook', { path: { id: endpoint.id }, idempotencyKey }),
    () => navigate('webhooks'),
  );
  const active = endpoint.status === 'ACTIVE';
  return (
    <section aria-labelledby="wh-state">
      <h2 id="wh-state">{active ? 'Disable or delete' : 'Enable or delete'}</h2>
      <p>{active ? 'A disabled endpoint receives nothing until it is enabled again.' : 'This endpoint is disabled: it receives nothing.'}</p>
      <div className="actions">
        {active ? (
          <ConfirmButton
            label="Disable the endpoint"
            question="Stop sending events to this endpoint?"
            confirmLabel="Disable"
            onConfirm={() => setStatus.mutate({ status: 'DISABLED' })}
          />
        ) : (
          <button type="button" onClick={() => setStatus.mutate({ status: 'ACTIVE' })} disabled={setStatus.isPending}>
            Enable the endpoint
          </button>
        )}
        <ConfirmButton label="Delete the endpoint" question="Delete this endpoint for good?" confirmLabel="Delete" onConfirm={() => remove.mutate(null)} />
      </div>
      <Outcome pending={setStatus.isPending} pendingLabel="Saving…" error={setStatus.error} />
      <Outcome pending={remove.isPending} pendingLabel="Deleting…" error={remove.error} />
    </section>
  );
}

function DeliveryLog() {
  return (
    <>
      <p>
        <a href={href('webhooks')}>← Endpoints</a>
      </p>
      <PageTitle>Delivery log</PageTitle>
      <p>Every event sent to your endpoints, with its attempts. A delivery that failed can be sent again (replay).</p>
      <DeliveryTable />
    </>
  );
}

const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;

interface DeliveryFilters {
  status: string;
  eventType: string;
  booking: string;
}

/** The delivery log, filtered by status, event type and booking; on an endpoint's page, that endpoint's deliveries. */
export function DeliveryTable({ endpointId }: { endpointId?: string }) {
  const f = useFilters<DeliveryFilters>({ status: '', eventType: '', booking: '' });
  const { filters, draft } = f;
  const pages = useCursorPages([filters, endpointId]);
  const booking = filters.booking.trim().toUpperCase();
  const q = useApiQuery(['webhooks', 'deliveries', endpointId ?? 'all', filters, pages.cursor], (env, signal) =>
    call(env, 'listWebhookDeliveries', {
      signal,
      query: {
        limit: 25,
        cursor: pages.cursor,
        status: filters.status || undefined,
        event_type: filters.eventType || undefined,
        booking_number: booking || undefined,
        endpoint_id: endpointId,
      },
    }),
  );
  const filtered = Boolean(filters.status || filters.eventType || booking);
  return (
    <>
      <FilterForm label="Filter the deliveries" onApply={f.apply} onClear={f.clear}>
        <SelectField label="Status" value={draft.status} onChange={(e) => f.set({ status: e.target.value })}>
          <option value="">Any</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.charAt(0) + s.slice(1).toLowerCase()}
            </option>
          ))}
        </SelectField>
        <SelectField label="Event" value={draft.eventType} onChange={(e) => f.set({ eventType: e.target.value })}>
          <option value="">Any</option>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </SelectField>
        <label>
          Booking number
          <input
            type="text"
            placeholder="PTB-7K3M-Q9XD"
            pattern="\s*[Pp][Tt][Bb]-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}\s*"
            value={draft.booking}
            onChange={(e) => f.set({ booking: e.target.value })}
          />
        </label>
      </FilterForm>
      <PagedTable
        query={q}
        pages={pages}
        loading="Loading deliveries…"
        empty={
          filtered
            ? 'No deliveries match these filters.'
            : endpointId
              ? 'No deliveries to this endpoint yet: it receives the events it subscribes to from now on (or send a test event above).'
              : 'No deliveries in this environment yet: an event is delivered once an endpoint subscribes to its type.'
        }
        pagerLabel="Pages of deliveries"
        caption="Deliveries, most recent first"
        rowKey={(d) => d.id}
        columns={[
          {
            header: 'Created',
            cell: (d) => (
              <a href={href('webhooks', 'deliveries', d.id)} aria-label={`Delivery ${shortId(d.id)} of ${d.event_type}`}>
                <DateTime value={d.created_at} />
              </a>
            ),
          },
          {
            header: 'Event',
            cell: (d) => (
              <>
                <code className="token">{d.event_type}</code>
                {d.test_send ? <span className="muted"> (test send)</span> : null}
                {d.replay_of ? <span className="muted"> (replay)</span> : null}
              </>
            ),
          },
          !endpointId && { header: 'Endpoint', cell: (d) => <span className="break">{d.url}</span> },
          { header: 'Status', cell: (d) => <Badge value={d.status} /> },
          { header: 'Attempts', numeric: true, cell: (d) => d.attempts },
          { header: 'Last answer', cell: (d) => d.last_http_status ?? d.last_error ?? '—' },
          { header: 'Next attempt', cell: (d) => <DateTime value={d.next_attempt_at} /> },
        ]}
      />
    </>
  );
}

/** What an event is about, from its payload: its booking or its settlement, linked. */
export function EventSubject({ event }: { event: WebhookDeliveryDetail['event'] }) {
  const data = (event?.data ?? {}) as Record<string, unknown>;
  if (typeof data.booking_number === 'string')
    return (
      <>
        Booking{' '}
        <a href={href('bookings', data.booking_number)} className="token">
          {data.booking_number}
        </a>
      </>
    );
  if (typeof data.settlement_id === 'string')
    return (
      <>
        Settlement{' '}
        <a href={href('settlements', data.settlement_id)} className="token">
          {typeof data.number === 'string' ? data.number : shortId(data.settlement_id)}
        </a>
      </>
    );
  if (typeof data.adventure_slug === 'string')
    return (
      <>
        Adventure <code>{data.adventure_slug}</code>
      </>
    );
  return <span className="muted">—</span>;
}

function DeliveryDetail({ id }: { id: string }) {
  const can = useCan();
  const q = useApiQuery(['webhooks', 'delivery', id], (env, signal) => call(env, 'getWebhookDelivery', { path: { id }, signal }), {
    // An attempt in flight, or a delivery waiting for one: read again until it is recorded.
    refetchInterval: (query) => (query.state.data?.status === 'PENDING' ? 2000 : false),
  });
  return (
    <>
      <p>
        <a href={href('webhooks', 'deliveries')}>← Delivery log</a>
      </p>
      <PageTitle>Delivery {shortId(id)}</PageTitle>
      <QueryView query={q} loading="Loading the delivery…">
        {(d) => (
          <>
            <Details
              items={[
                ['Event', <code key="e">{d.event_type}</code>],
                ['About', <EventSubject key="about" event={d.event} />],
                ['Event id', <code key="i">{d.event_id}</code>],
                ['Endpoint', <DeliveryEndpoint key="u" delivery={d} />],
                ['Status', <Badge key="s" value={d.status} />],
                ['Attempts', String(d.attempts)],
                ['Delivered', <DateTime key="d" value={d.delivered_at} />],
                ['Next attempt', <DateTime key="n" value={d.next_attempt_at} />],
                ['Dead-lettered', <DateTime key="x" value={d.dead_lettered_at} />],
                [
                  'Replay of',
                  d.replay_of ? (
                    <a key="r" href={href('webhooks', 'deliveries', d.replay_of)}>
                      {shortId(d.replay_of)}
                    </a>
                  ) : (
                    '—'
                  ),
                ],
                ['Kind', d.test_send ? 'Test send' : d.test ? 'Sandbox event' : 'Live event'],
              ]}
            />
            <section aria-labelledby="dl-payload">
              <h2 id="dl-payload">Payload</h2>
              {d.event ? (
                <>
                  <p>The event as every attempt sends it (the body is these fields in this order, without the indentation).</p>
                  <pre className="body" data-testid="payload">
                    {JSON.stringify(d.event, null, 2)}
                  </pre>
                </>
              ) : (
                <p>The event can no longer be read: events are kept at least 30 days.</p>
              )}
            </section>
            <section aria-labelledby="dl-attempts">
              <h2 id="dl-attempts">Attempts</h2>
              {d.attempt_log.length === 0 ? (
                <p>No attempt yet.</p>
              ) : (
                <>
                  <DataTable
                    caption="Attempts, oldest first"
                    rows={d.attempt_log}
                    rowKey={(a) => a.id}
                    columns={[
                      { header: '#', cell: (a) => a.number },
                      { header: 'Sent', cell: (a) => <DateTime value={a.attempted_at} /> },
                      { header: 'Result', cell: (a) => (a.result ? <Badge value={a.result} /> : 'in flight') },
                      { header: 'HTTP status', cell: (a) => a.http_status ?? '—' },
                      { header: 'Time', numeric: true, cell: (a) => (a.response_time_ms === null ? '—' : `${a.response_time_ms} ms`) },
                      { header: 'Error', cell: (a) => a.error ?? '—' },
                    ]}
                  />
                  {d.attempt_log.map((a) => (
                    <ReceiverAnswer key={a.id} attempt={a} />
                  ))}
                </>
              )}
            </section>
            {can('webhooks:write') ? <Replay delivery={d} /> : null}
          </>
        )}
      </QueryView>
    </>
  );
}

type Attempt = WebhookDeliveryDetail['attempt_log'][number];

/** What the receiver answered to one attempt: its status, its headers and the first KB of its body. */
function ReceiverAnswer({ attempt: a }: { attempt: Attempt }) {
  const headingId = `dl-answer-${a.number}`;
  const r = a.response;
  return (
    <section aria-labelledby={headingId} className="answer">
      <h3 id={headingId}>
        Attempt {a.number}: {a.http_status === null ? (a.result ? 'no answer' : 'in flight') : `HTTP ${a.http_status}`}
      </h3>
      {!r ? (
        <p>
          {a.result === null
            ? 'The attempt is in flight: its answer is shown once it arrives.'
            : a.http_status === null
              ? `Your endpoint did not answer: ${a.error ?? 'no answer'}.`
              : 'The answer of this attempt was not kept (an attempt made before answers were kept).'}
        </p>
      ) : (
        <>
          <DataTable
            caption={`Headers of the answer to attempt ${a.number}`}
            showCaption
            rows={Object.entries(r.headers).map(([name, value]) => ({ name, value }))}
            rowKey={(h) => h.name}
            columns={[
              { header: 'Header', rowHeader: true, cell: (h) => <code>{h.name}</code> },
              { header: 'Value', cell: (h) => <span className="break">{h.value}</span> },
            ]}
          />
          <h4>Body{r.body_truncated ? ' (its first KB)' : ''}</h4>
          {r.body ? <pre className="body">{r.body}</pre> : <p className="muted">Empty.</p>}
        </>
      )}
    </section>
  );
}

/** The delivery's endpoint, read once for the page: undefined while reading, null once it is known deleted (404). */
function useDeliveryEndpoint(d: WebhookDelivery): WebhookEndpoint | null | undefined {
  const q = useApiQuery(['webhooks', 'one', d.endpoint_id], (env, signal) => call(env, 'getWebhook', { path: { id: d.endpoint_id }, signal }));
  if (q.error instanceof ApiError && q.error.status === 404) return null;
  return q.data;
}

function DeliveryEndpoint({ delivery: d }: { delivery: WebhookDelivery }) {
  if (useDeliveryEndpoint(d) === null)
    return (
      <>
        <span className="break">{d.url}</span> <span className="muted">(deleted)</span>
      </>
    );
  return (
    <a href={href('webhooks', d.endpoint_id)} className="break">
      {d.url}
    </a>
  );
}

/** Replay is offered only while the endpoint exists: a deleted one would fail the new delivery at once. */
function Replay({ delivery: d }: { delivery: WebhookDelivery }) {
  const endpoint = useDeliveryEndpoint(d);
  const replay = useWrite((_: null, { env, idempotencyKey }) => call(env, 'replayWebhookDelivery', { path: { id: d.id }, body: {}, idempotencyKey }));
  return (
    <section aria-labelledby="dl-replay">
      <h2 id="dl-replay">Replay</h2>
      {endpoint === null ? (
        <p>The endpoint of this delivery was deleted: there is nothing to replay it to.</p>
      ) : (
        <>
          <p>Sends this event to the endpoint again, now.</p>
          <button type="button" onClick={() => replay.mutate(null)} disabled={replay.isPending || endpoint === undefined}>
            Replay the delivery
          </button>
          <Outcome
            pending={replay.isPending}
            pendingLabel="Replaying…"
            error={replay.error}
            success={
              replay.data ? (
                <>
                  Replay queued as delivery <a href={href('webhooks', 'deliveries', replay.data.id)}>{shortId(replay.data.id)}</a>.
                </>
              ) : null
            }
          />
        </>
      )}
    </section>
  );
}
