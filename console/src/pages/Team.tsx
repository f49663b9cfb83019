import { type FormEvent, useState } from 'react';
import { ApiError, call } from '../api';
import { useApiQuery, useEnv, useSwitchEnvironment, useWrite } from '../hooks';
import { DataTable, QueryView } from '../lists';
import { useCan } from '../me';
import { ROLE_NAMES, ROLES, type Role, type TeamMember } from '../types';
import { Badge, ConfirmButton, DateTime, ErrorNote, PageTitle, SelectField, Spinner } from '../ui';

const ROLE_HELP: Record<Role, string> = {
  PARTNER_ADMIN: 'everything, team and API keys included',
  FINANCE: 'settlements and bookings',
  DEVELOPER: 'catalog, quotes, bookings, webhooks and the activity log',
  VIEWER: 'reads everything but the activity log; changes nothing',
};

const nameOf = (m: TeamMember) => `${m.first_name} ${m.last_name}`.trim() || m.email;

export default function Team() {
  const can = useCan();
  const env = useEnv();
  const switchTo = useSwitchEnvironment();
  // Members are partner-wide: changing them reaches production, so it is done in live.
  const manage = can('team:manage') && env === 'live';
  const q = useApiQuery(['team'], (env, signal) => call(env, 'listTeamMembers', { signal }));
  return (
    <>
      <PageTitle>Team</PageTitle>
      <p>Members belong to your partner in both environments: a change here reaches production too.</p>
      {can('team:manage') && env === 'sandbox' ? (
        <div className="notice">
          <p>Inviting, changing roles, disabling and removing members reach production, so they are done in Live.</p>
          <button type="button" className="secondary" onClick={() => switchTo('live')}>
            Switch to Live to manage the team
          </button>
        </div>
      ) : null}
      {manage ? <Invite /> : null}
      <section aria-labelledby="team-members">
        <h2 id="team-members">Members</h2>
        <QueryView query={q} loading="Loading the team…">
          {(list) => (
            <DataTable
              rows={list.data}
              rowKey={(m) => m.id}
              columns={[
                {
                  header: 'Name',
                  rowHeader: true,
                  cell: (m) => (
                    <>
                      {nameOf(m)}
                      {m.is_you ? <span className="muted"> (you)</span> : null}
                    </>
                  ),
                },
                { header: 'E-mail', cell: (m) => m.email },
                { header: 'Role', cell: (m) => ROLE_NAMES[m.role] },
                { header: 'Status', cell: (m) => <Badge value={m.status} /> },
                { header: 'Added', cell: (m) => <DateTime value={m.created_at} /> },
                manage && {
                  header: 'Actions',
                  cell: (m) => (m.is_you ? <span className="muted">You cannot change your own access.</span> : <MemberActions m={m} />),
                },
              ]}
            />
          )}
        </QueryView>
      </section>
      <section aria-labelledby="team-roles">
        <h2 id="team-roles">Roles</h2>
        <ul>
          {ROLES.map((r) => (
            <li key={r}>
              <strong>{ROLE_NAMES[r]}</strong>: {ROLE_HELP[r]}.
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

/** A refusal in the API's words; "live only" comes with a way to switch. */
function Refusal({ error }: { error: unknown }) {
  const env = useEnv();
  const switchTo = useSwitchEnvironment();
  if (!error) return null;
  return (
    <>
      <ErrorNote error={error} />
      {error instanceof ApiError && error.code === 'auth.environment.live_required' && env === 'sandbox' ? (
        <button type="button" className="secondary" onClick={() => switchTo('live')}>
          Switch to Live
        </button>
      ) : null}
    </>
  );
}

interface InviteBody {
  email: string;
  role: Role;
  first_name: string;
  last_name: string;
}

function Invite() {
  const [body, setBody] = useState<InviteBody>({ email: '', role: 'VIEWER', first_name: '', last_name: '' });
  const [sent, setSent] = useState<string | null>(null);
  const invite = useWrite(
    (b: InviteBody, { env, idempotencyKey }) => call(env, 'inviteTeamMember', { body: b, idempotencyKey }),
    (_, b) => {
      setSent(b.email);
      setBody({ email: '', role: b.role, first_name: '', last_name: '' });
    },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSent(null);
    invite.mutate({ ...body, email: body.email.trim(), first_name: body.first_name.trim(), last_name: body.last_name.trim() });
  };
  return (
    <section aria-labelledby="team-invite">
      <h2 id="team-invite">Invite a member</h2>
      <form className="grid-form" onSubmit={submit}>
        <label>
          E-mail
          <input type="email" required autoComplete="off" value={body.email} onChange={(e) => setBody({ ...body, email: e.target.value })} />
        </label>
        <label>
          First name
          <input type="text" required value={body.first_name} onChange={(e) => setBody({ ...body, first_name: e.target.value })} />
        </label>
        <label>
          Last name
          <input type="text" required value={body.last_name} onChange={(e) => setBody({ ...body, last_name: e.target.value })} />
        </label>
        <SelectField label="Role" value={body.role} onChange={(e) => setBody({ ...body, role: e.target.value as Role })}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_NAMES[r]}
            </option>
          ))}
        </SelectField>
        <div className="actions">
          <button type="submit" disabled={invite.isPending}>
            Send the invitation
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {invite.isPending ? <Spinner label="Sending the invitation…" /> : null}
        {sent && !invite.isPending ? <p className="success">Invitation sent to {sent}: they receive a temporary password by e-mail.</p> : null}
      </div>
      <Refusal error={invite.error} />
    </section>
  );
}

function MemberActions({ m }: { m: TeamMember }) {
  const [role, setRole] = useState<Role>(m.role);
  const [done, setDone] = useState<string | null>(null);
  const changeRole = useWrite(
    (b: { role: Role }, { env, idempotencyKey }) => call(env, 'updateTeamMemberRole', { path: { user_id: m.id }, body: b, idempotencyKey }),
    (_, b) => setDone(`Role changed to ${ROLE_NAMES[b.role]}.`),
  );
  const setEnabled = useWrite(
    (b: { enabled: boolean }, { env, idempotencyKey }) => call(env, 'updateTeamMember', { path: { user_id: m.id }, body: b, idempotencyKey }),
    (_, b) => setDone(b.enabled ? 'Enabled.' : 'Disabled: their sessions and keys stop working now.'),
  );
  const resend = useWrite(
    (_: null, { env, idempotencyKey }) => call(env, 'resendTeamMemberInvitation', { path: { user_id: m.id }, body: {}, idempotencyKey }),
    () => setDone('Invitation sent again.'),
  );
  const remove = useWrite(
    (_: null, { env, idempotencyKey }) => call(env, 'removeTeamMember', { path: { user_id: m.id }, idempotencyKey }),
    () => setDone('Removed.'),
  );
  const writes = [changeRole, setEnabled, resend, remove];
  const pending = writes.find((w) => w.isPending);
  const failed = writes.find((w) => w.isError);
  const start = () => {
    setDone(null);
    for (const w of writes) w.reset();
  };
  const name = nameOf(m);
  const invited = m.status === 'INVITED';
  return (
    <div className="member-actions">
      <form
        className="row compact"
        onSubmit={(e) => {
          e.preventDefault();
          start();
          changeRole.mutate({ role });
        }}
      >
        <SelectField label={`Role of ${name}`} hideLabel value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_NAMES[r]}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="secondary" disabled={role === m.role || !!pending}>
          Change role<span className="visually-hidden"> of {name}</span>
        </button>
      </form>
      <div className="row compact">
        {m.enabled ? (
          <ConfirmButton
            label="Disable"
            context={name}
            question={`Disable ${name}? Their sessions and keys stop working.`}
            confirmLabel="Disable"
            onConfirm={() => {
              start();
              setEnabled.mutate({ enabled: false });
            }}
          />
        ) : (
          <button
            type="button"
            className="secondary"
            disabled={!!pending}
            onClick={() => {
              start();
              setEnabled.mutate({ enabled: true });
            }}
          >
            Enable<span className="visually-hidden"> {name}</span>
          </button>
        )}
        {invited ? (
          <button
            type="button"
            className="secondary"
            disabled={!!pending}
            onClick={() => {
              start();
              resend.mutate(null);
            }}
          >
            Resend the invitation<span className="visually-hidden"> to {name}</span>
          </button>
        ) : null}
        <ConfirmButton
          label="Remove"
          context={name}
          question={`Remove ${name} from the team for good?`}
          confirmLabel="Remove"
          onConfirm={() => {
            start();
            remove.mutate(null);
          }}
        />
      </div>
      <div aria-live="polite">
        {pending ? <Spinner label="Saving…" /> : null}
        {!pending && done ? <p className="success">{done}</p> : null}
      </div>
      {!pending && failed ? <Refusal error={failed.error} /> : null}
    </div>
  );
}
