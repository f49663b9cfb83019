import { call } from '../api';
import { useApiQuery, useEnv } from '../hooks';
import { DataTable, QueryView } from '../lists';
import { useCan, useMe } from '../me';
import { type AuditEvent, ROLE_NAMES } from '../types';
import { Badge, DateTime, Details, PageTitle, shortId } from '../ui';

/** Who a member id is, in words: "you", a team member's name, or the id's start. */
export function useMemberNames() {
  const can = useCan();
  const me = useMe();
  const team = useApiQuery(['team'], (env, signal) => call(env, 'listTeamMembers', { signal }), { enabled: can('team:read') });
  return (id: string | null | undefined) => {
    if (!id) return 'the operators';
    if (id === me.member.id) return `You (${me.member.email})`;
    const m = team.data?.data.find((x) => x.id === id);
    return m ? `${m.first_name} ${m.last_name}`.trim() || m.email : `Member ${shortId(id)}`;
  };
}

export default function Overview() {
  const me = useMe();
  const env = useEnv();
  const can = useCan();
  const reset = new Date(me.rate_limit.reset * 1000).toISOString();
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <section aria-labelledby="ov-workspace">
        <h2 id="ov-workspace">Your workspace</h2>
        <Details
          items={[
            ['Partner', me.partner.name],
            ['Partner id', <code key="p">{me.partner.id}</code>],
            ['Signed in as', me.member.email],
            ['Role', ROLE_NAMES[me.member.role]],
            ['Environment', env === 'sandbox' ? 'Sandbox (test data)' : 'Live (production)'],
            ['Through', me.key ? `API key ${me.key.id}` : 'the console'],
            ['Signed in', me.session ? <DateTime key="s" value={me.session.signed_in_at} /> : '—'],
          ]}
        />
      </section>
      <section aria-labelledby="ov-rate">
        <h2 id="ov-rate">Rate limit</h2>
        <p>
          {me.rate_limit.limit_per_minute} requests a minute for each API key, and for each member's console session, each counted on its own: two keys never
          share their minute. {me.key ? 'This key' : 'Your session'} has {me.rate_limit.remaining} left in this minute; the count starts again at{' '}
          <DateTime value={reset} />.
        </p>
        <meter className="rate-meter" min={0} max={me.rate_limit.limit_per_minute} value={me.rate_limit.remaining} aria-label="Requests left this minute">
          {me.rate_limit.remaining} of {me.rate_limit.limit_per_minute}
        </meter>
      </section>
      <section aria-labelledby="ov-activity">
        <h2 id="ov-activity">Recent activity</h2>
        {can('audit:read') ? <RecentActivity /> : <p>Your role does not include the activity log: an administrator or a developer can read it.</p>}
      </section>
    </>
  );
}

function RecentActivity() {
  const names = useMemberNames();
  const q = useApiQuery(['audit', 'recent'], (env, signal) => call(env, 'listAuditEvents', { query: { limit: 10 }, signal }));
  return (
    <QueryView query={q} loading="Loading recent activity…">
      {(page) =>
        page.data.length === 0 ? (
          <p>No changes yet in this environment.</p>
        ) : (
          <DataTable
            caption="The last changes made in this environment, most recent first"
            rows={page.data as AuditEvent[]}
            rowKey={(e) => e.id}
            columns={[
              { header: 'When', cell: (e) => <DateTime value={e.occurred_at} /> },
              { header: 'Who', cell: (e) => names(e.member_id) },
              { header: 'Through', cell: (e) => (e.via === 'console' || !e.key_prefix ? 'Console' : `API key ${e.key_prefix}`) },
              {
                header: 'Request',
                cell: (e) => (
                  <code>
                    {e.method} {e.path}
                  </code>
                ),
              },
              {
                header: 'Answer',
                cell: (e) => (
                  <>
                    <Badge value={String(e.status)} />
                    {e.idempotent_replayed ? <span className="muted"> (replayed)</span> : null}
                  </>
                ),
              },
              { header: 'Request id', cell: (e) => <code className="small">{e.request_id}</code> },
            ]}
          />
        )
      }
    </QueryView>
  );
}
