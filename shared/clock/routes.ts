import { defineRoutes } from '../http/route-def';
import { clockPartitions } from './keys';
import { AdvanceClockBody, MAX_ADVANCE_DAYS, SandboxClock } from './schemas';

/** The sandbox clock: a partner moves its own sandbox forward in time. */
export const clockRoutes = defineRoutes({
  getSandboxClock: {
    method: 'GET',
    path: '/v1/test-helpers/clock',
    handler: 'functions/clock/get.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Test helpers',
    summary: "Sandbox: your sandbox's clock",
    description: 'The time every rule of your sandbox reads, how far it is ahead of real time, and whether an advance is playing. Sandbox keys only.',
    responses: { 200: { description: 'The clock.', schema: SandboxClock } },
    sandboxOnly: true,
    dynamo: { data: { GetItem: [clockPartitions.clock] } },
  },
  advanceSandboxClock: {
    method: 'POST',
    path: '/v1/test-helpers/clock/advance',
    handler: 'functions/clock/advance.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Test helpers',
    summary: 'Sandbox: move your sandbox forward in time, with everything that falls due on the way',
    description:
      `Moves the clock to \`to\` (after its now, at most ${MAX_ADVANCE_DAYS} days ahead). What falls due on the way happens in time order, each at its own time, ` +
      'with its webhooks: quotes expire, trips complete (booking.completed), the 1st of a month issues the previous month (settlement.issued), ' +
      'webhook retries are attempted, failing endpoints are warned and disabled. The answer waits up to 10 seconds: `ready` when all of it is recorded, ' +
      'else `advancing` (read GET /test-helpers/clock until ready). Sandbox keys only.',
    request: { body: AdvanceClockBody },
    errors: ['clock.advance.backwards', 'clock.advance.too_far', 'clock.advancing'],
    responses: { 200: { description: 'The clock: ready, or advancing while the due work plays.', schema: SandboxClock } },
    effectsOutsideCommit:
      'The advance is queued once the clock has moved to advancing; what falls due on the way is recorded by the advance, each change in its own transaction.',
    sendsTo: ['clock'],
    sandboxOnly: true,
    timeoutSeconds: 20,
    dynamo: { data: { GetItem: [clockPartitions.clock], UpdateItem: [clockPartitions.clock] } },
  },
});
