import { clockRoutes } from '../../shared/clock/routes';
import { clockStore } from '../../shared/clock/store';
import { clockView } from '../../shared/clock/views';
import { route } from '../../shared/http/route';

export const handler = route(clockRoutes.getSandboxClock, async ({ tenant }) => ({ body: clockView(await clockStore.get(tenant.partnerId)) }));
