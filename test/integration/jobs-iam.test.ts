import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../shared/queues';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * Every scheduled job, run as its own role (the narrowed grants of infra/constructs/jobs.ts: its run record, the
 * data table only if its JobDef says so, its queues only), in a stack of its own: the sandbox refresh and the
 * monthly settlement run touch every partner, which the shared stack's other files must not see. A grant that
 * misses something a job does fails its run with AccessDenied and leaves a line in the stack's denies.
 */
let stack: OwnStack;

beforeAll(async () => {
  stack = await OwnStack.start('jobs-iam', {});
  // One partner with a sandbox, so that the refresh moves a partner's catalog and the settlement run has tenants.
  await stack.admin(['partner:create', '--name', 'Jobs Bank']);
}, BOOT_HOOK_MS);

afterAll(() => stack?.stop(), 30_000);

describe('the scheduled jobs under their own roles', () => {
  it.each(JOBS.map((j) => j.id))('%s runs to its end with no call refused', async (job) => {
    const run = await stack.admin(['job:run', '--job', job]);
    expect(run).toMatchObject({ job });
    const denies = join(stack.stateDir, 'iam', 'denies.jsonl');
    expect(existsSync(denies) ? readFileSync(denies, 'utf8') : '').toBe('');
  });
});
