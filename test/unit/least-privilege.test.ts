import { describe, expect, it } from 'vitest';
import type { Usage } from '../../infra/local/iam/enforce';
import type { IamModel } from '../../infra/local/iam/model';
import { type Expectation, leastPrivilegeReport, unexpectedUnused, unusedGrants } from '../../infra/local/iam/report';
import { bookingPartitions } from '../../shared/bookings/keys';
import { catalogPartitions } from '../../shared/catalog/keys';
import { dynamoLine } from '../../shared/db/grants';

const BOOKING = bookingPartitions.booking;
const MARKER = catalogPartitions.unavailable;

const TABLE = 'arn:aws:dynamodb:us-east-1:123456789012:table/data';
const QUEUE = 'arn:aws:sqs:us-east-1:123456789012:mail';

/** A model of two route functions: one statement bounded by two partitions, one unbounded, one queue send. */
function model(): IamModel {
  const role = (principal: string) => ({
    principal,
    name: principal,
    roleArn: `arn:aws:iam::123456789012:role/${principal.replace(/\W/g, '')}`,
    policies: [
      {
        name: 'policy',
        document: {
          Statement: [
            {
              Effect: 'Allow' as const,
              Action: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
              Resource: TABLE,
              Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [BOOKING, MARKER] } },
            },
            { Effect: 'Allow' as const, Action: 'sqs:SendMessage', Resource: QUEUE },
            { Effect: 'Allow' as const, Action: ['logs:PutLogEvents', 'xray:PutTraceSegments'], Resource: '*' },
          ],
        },
      },
    ],
  });
  const roles = Object.fromEntries(['function:functions/a.ts', 'function:functions/b.ts'].map((p) => [p, role(p)]));
  return {
    roles,
    resourcePolicies: {},
    trustPolicies: {},
    managedPolicies: {},
    environments: {},
    functions: {},
    subscriptions: [],
    userPoolTriggers: [],
    asyncConfigs: {},
  };
}

/** Function a put bookings (never an unavailability marker) and deleted nothing; function b was never called. */
const usage: Usage = {
  'function:functions/a.ts': {
    [`dynamodb:PutItem ${TABLE}`]: { count: 3, allowedBy: ['policy#0'], partitions: [BOOKING], patterns: { 'policy#0': [BOOKING] } },
    [`sqs:SendMessage ${QUEUE}`]: { count: 1, allowedBy: ['policy#1'] },
  },
};

const expected: Record<string, Expectation> = {
  'function:functions/a.ts': { label: 'routeA', untested: { [dynamoLine('data', 'DeleteItem', MARKER)]: 'a cancellation frees a sold-out slot' } },
  'function:functions/b.ts': { label: 'routeB', untested: {} },
};

describe('the least-privilege report', () => {
  it("names each partition a statement's action never reached, and each action never used, without the runtime's", () => {
    const rows = unusedGrants(model(), usage);
    const a = rows.find((r) => r.principal === 'function:functions/a.ts')!;
    expect(a).toMatchObject({ granted: 3, used: 2, partitions: 4, partitionsUnused: 3, called: true });
    expect(a.unused).toEqual([dynamoLine('data', 'PutItem', MARKER), dynamoLine('data', 'DeleteItem', BOOKING), dynamoLine('data', 'DeleteItem', MARKER)]);
    // The lines are the ones a route's `untested` names (shared/db/grants.ts dynamoLine).
    expect(a.unused[0]).toBe(`dynamodb:PutItem on table data for ${MARKER}`);
    const b = rows.find((r) => r.principal === 'function:functions/b.ts')!;
    expect(b).toMatchObject({ granted: 3, used: 0, called: false });
    expect(b.unused).toContain('sqs:SendMessage on queue mail');
  });

  it('names each resource of a statement apart, as CDK may merge statements on several resources', () => {
    const m = model();
    const other = 'arn:aws:sqs:us-east-1:123456789012:webhooks';
    const statements = m.roles['function:functions/a.ts']!.policies[0]!.document.Statement as { Resource?: string | string[] }[];
    statements[1]!.Resource = [QUEUE, other];
    const a = unusedGrants(m, usage).find((r) => r.principal === 'function:functions/a.ts')!;
    expect(a.unused.filter((l) => l.startsWith('sqs:'))).toEqual(['sqs:SendMessage on queue webhooks']);
  });

  it('fails a called function on every unused grant its expectation does not accept, and leaves uncalled ones alone', () => {
    expect(unexpectedUnused(unusedGrants(model(), usage), expected)).toEqual([
      { label: 'routeA', lines: [dynamoLine('data', 'PutItem', MARKER), dynamoLine('data', 'DeleteItem', BOOKING)] },
    ]);
    // Once it put a marker and deleted a booking, only the accepted line is left: nothing fails.
    const more: Usage = {
      'function:functions/a.ts': {
        ...usage['function:functions/a.ts'],
        [`dynamodb:PutItem ${TABLE}`]: { count: 4, allowedBy: ['policy#0'], patterns: { 'policy#0': [BOOKING, MARKER] } },
        [`dynamodb:DeleteItem ${TABLE}`]: { count: 1, allowedBy: ['policy#0'], patterns: { 'policy#0': [BOOKING] } },
      },
    };
    expect(unexpectedUnused(unusedGrants(model(), more), expected)).toEqual([]);
  });

  it('shows a route by its id, marks what it accepts as untested and what the run never called, with the totals', () => {
    const text = leastPrivilegeReport(model(), usage, [], undefined, expected);
    expect(text).toContain(
      '2 functions; 6 granted actions (per statement, without logs and X-Ray), 4 never used in this run; 8 partition grants (action and dynamodb:LeadingKeys pattern), 7 never reached; 0 denied calls; 2 unused grants of routes the run called and no route accepts as untested.',
    );
    expect(text).toContain(`\`${dynamoLine('data', 'DeleteItem', MARKER)}\` (untested)`);
    expect(text).toContain('| `routeA (a.ts)` | 3 | 2 |');
    expect(text).toContain('| `routeB (b.ts)` (not called) | 3 | 0 |');
  });
});
