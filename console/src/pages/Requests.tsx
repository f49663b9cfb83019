import { call } from '../api';
import { href, useApiQuery, useCursorPages } from '../hooks';
import { DataTable, FilterForm, PagedTable, QueryView, useFilters } from '../lists';
import type { RequestLogBody, RequestLogEntry } from '../types';
import { Badge, DateTime, Details, PageTitle, SelectField } from '../ui';

/** The request log (GET /request-logs): every request of the partner in this environment, a few seconds after it. */
export default function Requests({ route }: { route: string[] }) {
  return route[0] ? <RequestDetail requestId={route[0]} /> : <RequestList />;
}

interface Filters {
  status: string;
  code: string;
  path: string;
  requestId: string;
  idempotencyKey: string;
  key: string;
  from: string;
  to: string;
}

const STATUS_CHOICES = ['', '2xx', '4xx', '5xx', '400', '401', '403', '404', '409', '422', '429'];
const none: Filters = { status: '', code: '', path: '', requestId: '', idempotencyKey: '', key: '', from: '', to: '' };
const text = (v: string) => v.trim() || undefined;

function RequestList() {
  const f = useFilters<Filters>(none);
  const { filters, draft } = f;
  const pages = useCursorPages(filters);
  const q = useApiQuery(['request-logs', 'list', filters, pages.cursor], (env, signal) =>
    call(env, 'listRequestLogs', {
      signal,
      query: {
        limit: 25,
        cursor: pages.cursor,
        status: text(filters.status),
        code: text(filters.code),
        path: text(filters.path),
        request_id: text(filters.requestId),
        idempotency_key: text(filters.idempotencyKey),
        key: text(filters.key),
        // The day's bounds in UTC, as the API takes instants.
        occurred_from: filters.from ? `${filters.from}T00:00:00Z` : undefined,
        occurred_to: filters.to ? `${filters.to}T23:59:59Z` : undefined,
      },
    }),
  );
  const field = (label: string, name: keyof Filters, placeholder?: string) => (
    <label>
      {label}
      <input type="text" value={draft[name]} placeholder={placeholder} onChange={(e) => f.set({ [name]: e.target.value })} />
    </label>
  );
  return (
    <>
      <PageTitle>Requests</PageTitle>
      <p>
        Every request of your keys and console sessions in this environment, newest first, kept 30 days. A request appears a few seconds after it was made;
        bodies are shown for errors only. Only public values are kept (ids, codes, amounts, dates): any other value is a marker with its class, its length and
        the start of its SHA-256, such as [personal 5 bytes sha256:7efe9a72].
      </p>
      <FilterForm label="Filter the requests" onApply={f.apply} onClear={f.clear}>
        <SelectField label="Status" value={draft.status} onChange={(e) => f.set({ status: e.target.value })}>
          {STATUS_CHOICES.map((s) => (
            <option key={s} value={s}>
              {s || 'Any'}
            </option>
          ))}
        </SelectField>
        {field('Error code', 'code', 'auth.signature.invalid')}
        {field('Path starts with', 'path', '/v1/bookings')}
        {field('Request id', 'requestId')}
        {field('Idempotency-Key', 'idempotencyKey', 'the key itself: it is hashed')}
        {field('Key id', 'key')}
        <label>
          From (UTC)
          <input type="date" value={draft.from} onChange={(e) => f.set({ from: e.target.value })} />
        </label>
        <label>
          To (UTC)
          <input type="date" value={draft.to} onChange={(e) => f.set({ to: e.target.value })} />
        </label>
      </FilterForm>
      <PagedTable
        query={q}
        pages={pages}
        loading="Loading requests…"
        empty="No requests match."
        pagerLabel="Pages of requests"
        caption="Requests, most recent first"
        rowKey={(r) => r.request_id}
        columns={[
          { header: 'Time', cell: (r) => <DateTime value={r.occurred_at} /> },
          { header: 'Method', cell: (r) => r.method },
          { header: 'Path', cell: (r) => <code>{r.path}</code> },
          { header: 'Status', cell: (r) => <Badge value={String(r.status)} /> },
          { header: 'Error code', cell: (r) => (r.error_code ? <code>{r.error_code}</code> : '—') },
          { header: 'Latency', numeric: true, cell: (r) => `${r.latency_ms} ms` },
          { header: 'By', cell: (r) => (r.via === 'console' ? 'Console' : `Key ${r.key_id}`) },
          {
            header: 'Request',
            cell: (r) => (
              <a href={href('requests', r.request_id)} aria-label={`Request ${r.request_id}`}>
                <code>{r.request_id}</code>
              </a>
            ),
          },
        ]}
      />
    </>
  );
}

function RequestDetail({ requestId }: { requestId: string }) {
  const q = useApiQuery(['request-logs', 'one', requestId], (env, signal) => call(env, 'getRequestLog', { path: { request_id: requestId }, signal }));
  return (
    <>
      <p>
        <a href={href('requests')}>← All requests</a>
      </p>
      <PageTitle>Request {requestId}</PageTitle>
      <QueryView query={q} loading="Loading the request…">
        {(r) => <RequestBody entry={r} />}
      </QueryView>
    </>
  );
}

/** A body of the entry: the request's as the service received it, or the answer's as it sent it. */
function Body({ title, body, passed }: { title: string; body: RequestLogBody | null; passed: 'received' | 'sent' }) {
  if (!body) return null;
  const id = `rq-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <Details
        items={[
          [passed === 'received' ? 'Received' : 'Sent', `${body.bytes} bytes`],
          [`SHA-256 of the bytes ${passed}`, body.sha256 ? <code key="h">{body.sha256}</code> : 'not recorded (an entry written before it was)'],
        ]}
      />
      {body.content !== null ? (
        <>
          <p>
            <strong>Re-serialized and redacted</strong>, not the bytes {passed}: the body parsed, written again (and indented here), so its spacing and its hash
            are not those above; only public values are kept, any other is a marker
            {body.truncated ? '. Shown up to 8 192 characters.' : '.'}
          </p>
          <pre className="body">{pretty(body.content, body.truncated)}</pre>
        </>
      ) : (
        <p>Not kept: {body.omitted}</p>
      )}
    </section>
  );
}

/** The body the service signed beside the body it received: the same bytes, whose hash the caller compares with its signer's. */
function SignedAndReceived({ signature, body }: { signature: Record<string, unknown>; body: RequestLogBody | null }) {
  if (typeof signature.body_sha256 !== 'string') return null;
  const rows = [
    { part: 'Length', signed: `${String(signature.body_length)} bytes`, received: body ? `${body.bytes} bytes` : 'no body' },
    { part: 'SHA-256', signed: signature.body_sha256, received: body?.sha256 ?? (body ? 'not recorded' : 'no body') },
  ];
  const same = body?.sha256 === signature.body_sha256 || (!body && signature.body_length === 0);
  return (
    <>
      <DataTable
        caption="The body: signed and received"
        showCaption
        rows={rows}
        rowKey={(r) => r.part}
        columns={[
          { header: 'Body', rowHeader: true, cell: (r) => r.part },
          { header: 'Signed by the service', cell: (r) => <pre className="body">{r.signed}</pre> },
          { header: 'Received', cell: (r) => <pre className="body">{r.received}</pre> },
        ]}
      />
      <p>
        {same
          ? 'The same: the service signed the bytes it received. Compare this SHA-256 with the one your code computed over the body it signed: if they differ, the body changed between your signer and the request (spacing, re-serialization, encoding).'
          : 'Not the same record: compare both with the SHA-256 your code computed over the body it signed.'}
      </p>
    </>
  );
}

const pretty = (content: string, truncated: boolean) => {
  if (truncated) return content;
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
};

function RequestBody({ entry: r }: { entry: RequestLogEntry }) {
  const signature = r.signature as Record<string, unknown> | null;
  return (
    <>
      <section aria-labelledby="rq-summary">
        <h2 id="rq-summary">Summary</h2>
        <Details
          items={[
            ['Received', <DateTime key="t" value={r.occurred_at} />],
            ['Request', <code key="m">{`${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`}</code>],
            ['Status', <Badge key="s" value={String(r.status)} />],
            ['Error code', r.error_code ? <code key="c">{r.error_code}</code> : '—'],
            ['Latency', `${r.latency_ms} ms`],
            ['Idempotency-Key (its SHA-256)', r.idempotency_key ? <code key="i">{r.idempotency_key}</code> : '—'],
            [
              'Replayed',
              r.idempotent_replayed ? (
                <span key="r">
                  yes, the answer of <a href={href('requests', r.replay_of ?? '')}>{r.replay_of}</a>
                </span>
              ) : (
                'no'
              ),
            ],
            ['By', r.via === 'console' ? `Console, member ${r.member_id}` : `Key ${r.key_id}, member ${r.member_id}`],
            ['Source IP', r.source_ip ?? '—'],
            ['User agent', r.user_agent ?? '—'],
          ]}
        />
      </section>
      {signature ? (
        <section aria-labelledby="rq-signature">
          <h2 id="rq-signature">Signature diagnostics</h2>
          <p>
            What the service signed. Build the same from what your code signed and compare them part by part: the first part that differs is the one that
            changed on its way (none: the secret). A value the log does not keep (a query value, the Idempotency-Key) is a marker here: compare its length and
            the start of its SHA-256 with yours.
          </p>
          <SignedAndReceived signature={signature} body={r.request_body} />
          <DataTable
            caption="What the service signed, part by part"
            showCaption
            rows={Object.entries(signature).map(([part, value]) => ({ part, value: String(value) }))}
            rowKey={(p) => p.part}
            columns={[
              { header: 'Part', rowHeader: true, cell: (p) => p.part },
              { header: 'As the service received it', cell: (p) => <pre className="body">{p.value}</pre> },
            ]}
          />
        </section>
      ) : null}
      <Body title="Request body" body={r.request_body} passed="received" />
      <Body title="Response body" body={r.response_body} passed="sent" />
    </>
  );
}
