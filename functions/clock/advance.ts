import { awaitAdvance, startAdvance } from '../../shared/clock/advance';
import { clockRoutes } from '../../shared/clock/routes';
import { clockView } from '../../shared/clock/views';
import { route } from '../../shared/http/route';

/** Sandbox test helper: starts the advance, and answers the clock once it is ready or after 10 s. */
export const handler = route(clockRoutes.advanceSandboxClock, async ({ tenant, body }) => {
  const started = await startAdvance(tenant, body.to);
  return { body: clockView(await awaitAdvance(tenant.partnerId, started)) };
});
