import { awaitAdvance, currentAdvance, startAdvance } from '../../shared/clock/advance';
import { clockRoutes } from '../../shared/clock/routes';
import { clockView } from '../../shared/clock/views';
import { route } from '../../shared/http/route';

/**
 * Sandbox test helper: starts the advance, and answers the clock once it is ready or after 10 s. A retry with the
 * same Idempotency-Key answers the clock as it stands now, the same way (and resumes the advance if it stalled).
 */
export const handler = route(
  clockRoutes.advanceSandboxClock,
  async ({ tenant, body }) => {
    const started = await startAdvance(tenant, body.to);
    return { body: clockView(await awaitAdvance(tenant.partnerId, started)) };
  },
  {
    replaysCurrent: async ({ tenant, body }) => {
      const c = await currentAdvance(tenant, body.to);
      return { body: clockView(c && (await awaitAdvance(tenant.partnerId, c))) };
    },
  },
);
