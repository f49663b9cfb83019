import { type FormEvent, useEffect, useRef, useState } from 'react';
import { call } from '../api';
import { useApiQuery, useCursorPages, useEnv, useWrite } from '../hooks';
import { PagedTable } from '../lists';
import { useCan, useMe } from '../me';
import { type ApiKey, type ApiKeyWithSecret, ROLE_NAMES } from '../types';
import { Badge, ConfirmButton, DateTime, Outcome, PageTitle, SecretOnce, SelectField } from '../ui';
import { useMemberNames } from './Overview';

export default function ApiKeys() {
  const env = useEnv();
  const [issued, setIssued] = useState<ApiKeyWithSecret | null>(null);
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p>
        Keys let your systems call the API as a member, with that member's role. Keys issued here act in{' '}
        <strong>{env === 'sandbox' ? 'the sandbox (sk_test_…)' : 'production (sk_live_…; writes are signed)'}</strong>.
      </p>
      {issued ? (
        <SecretOnce
          title="The new API key"
          secret={issued.key}
          note="Copy it into your system's secret store now: it is shown only this once. If it is lost, revoke it and issue another."
          onDone={() => setIssued(null)}
        />
      ) : (
        <IssueKey onIssued={setIssued} />
      )}
      <KeyList />
    </>
  );
}

function IssueKey({ onIssued }: { onIssued: (k: ApiKeyWithSecret) => void }) {
  const me = useMe();
  const can = useCan();
  const team = useApiQuery(['team'], (env, signal) => call(env, 'listTeamMembers', { signal }), { enabled: can('team:read') });
  const [memberId, setMemberId] = useState(me.member.id);
  const [name, setName] = useState('');
  const issue = useWrite(
    (body: { member_id: string; name?: string }, { env, idempotencyKey }) => call(env, 'createApiKey', { body, idempotencyKey }) as Promise<ApiKeyWithSecret>,
    (k) => onIssued(k),
  );
  const members = (team.data?.data ?? []).filter((m) => m.enabled);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    issue.mutate({ member_id: memberId, ...(name.trim() ? { name: name.trim() } : {}) });
  };
  return (
    <section aria-labelledby="keys-issue">
      <h2 id="keys-issue">Issue a key</h2>
      <form className="row" onSubmit={submit}>
        <SelectField label="For the member" value={memberId} onChange={(e) => setMemberId(e.target.value)}>
          <option value={me.member.id}>You ({me.member.email})</option>
          {members
            .filter((m) => m.id !== me.member.id)
            .map((m) => (
              <option key={m.id} value={m.id}>
                {`${m.first_name} ${m.last_name}`.trim() || m.email} ({ROLE_NAMES[m.role]})
              </option>
            ))}
        </SelectField>
        <label>
          Name (the system that will hold it)
          <input type="text" maxLength={64} placeholder="payments-prod-eu1" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" disabled={issue.isPending}>
          Issue the key
        </button>
      </form>
      <Outcome pending={issue.isPending} pendingLabel="Issuing the key…" error={issue.error} />
    </section>
  );
}

function KeyList() {
  const names = useMemberNames();
  const pages = useCursorPages(null);
  const q = useApiQuery(['keys', pages.cursor], (env, signal) => call(env, 'listApiKeys', { signal, query: { limit: 25, cursor: pages.cursor } }));
  return (
    <section aria-labelledby="keys-list">
      <h2 id="keys-list">Keys of this environment</h2>
      <PagedTable<ApiKey>
        query={q}
        pages={pages}
        loading="Loading keys…"
        empty="No keys in this environment yet."
        pagerLabel="Pages of keys"
        rowKey={(k) => k.id}
        columns={[
          {
            header: 'Key',
            cell: (k) => (
              <>
                {k.name ? <div>{k.name}</div> : <div className="muted">No name</div>}
                <code>{k.id}</code>
              </>
            ),
          },
          { header: 'Member', cell: (k) => names(k.member_id) },
          {
            header: 'Status',
            cell: (k) => (
              <>
                <Badge value={k.status} />
                {k.revoked_at ? (
                  <div className="muted">
                    <DateTime value={k.revoked_at} />
                  </div>
                ) : null}
              </>
            ),
          },
          { header: 'Created', cell: (k) => <DateTime value={k.created_at} /> },
          {
            header: 'Last used',
            cell: (k) => <LastUsed apiKey={k} />,
          },
          { header: 'Issued by', cell: (k) => (k.issued_by ? names(k.issued_by) : 'the operators') },
          {
            header: 'Action',
            cell: (k) => (
              <div className="actions">
                <Rename id={k.id} name={k.name} />
                {k.status === 'ACTIVE' ? <Revoke id={k.id} name={k.name} /> : null}
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}

/** Use is kept LAST_USE_RETENTION_DAYS (90): a key younger than that without one was never used; an older one may have been, before. */
const LAST_USE_RETENTION_MS = 90 * 86_400_000;

function LastUsed({ apiKey: k }: { apiKey: ApiKey }) {
  if (k.last_used_at) return <DateTime value={k.last_used_at} />;
  const never = Date.now() - Date.parse(k.created_at) < LAST_USE_RETENTION_MS;
  return <span className="muted">{never ? 'Never' : 'Not in 90 days'}</span>;
}

/** Renames a key in place: its form replaces the button, takes the focus, and gives it back when done. */
function Rename({ id, name }: { id: string; name: string | null }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name ?? '');
  const input = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Where the focus goes once the form renders or leaves: its field, then the button that opened it.
  const opened = useRef(false);
  const close = () => setEditing(false);
  const rename = useWrite(
    (body: { name: string }, { env, idempotencyKey }) => call(env, 'renameApiKey', { path: { key_id: id }, body, idempotencyKey }),
    close,
  );
  useEffect(() => {
    if (editing) input.current?.focus();
    else if (opened.current) button.current?.focus();
    opened.current = editing;
  }, [editing]);
  if (!editing) {
    return (
      <button
        type="button"
        className="secondary"
        ref={button}
        onClick={() => {
          setValue(name ?? '');
          rename.reset();
          setEditing(true);
        }}
      >
        Rename<span className="visually-hidden"> key {name ?? id}</span>
      </button>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate({ name: value.trim() });
  };
  return (
    <form className="rename" onSubmit={submit} aria-label={`Rename key ${id}`}>
      <label>
        New name of key {id}
        <input ref={input} type="text" required maxLength={64} value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit" disabled={rename.isPending || !value.trim()}>
        Save the name
      </button>
      <button type="button" className="secondary" onClick={close}>
        Cancel
      </button>
      <Outcome pending={rename.isPending} pendingLabel="Renaming…" error={rename.error} />
    </form>
  );
}

function Revoke({ id, name }: { id: string; name: string | null }) {
  const revoke = useWrite((_: null, { env, idempotencyKey }) => call(env, 'revokeApiKey', { path: { key_id: id }, idempotencyKey }));
  return (
    <>
      <ConfirmButton
        label={`Revoke ${name ?? id}`}
        question={`Revoke key ${name ? `${name} (${id})` : id}? It stops working at once.`}
        confirmLabel="Revoke"
        onConfirm={() => revoke.mutate(null)}
      />
      <Outcome pending={revoke.isPending} pendingLabel="Revoking…" error={revoke.error} />
    </>
  );
}
