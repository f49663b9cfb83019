import { getEvent } from '../../shared/events/read';
import { eventRoutes } from '../../shared/events/routes';
import { route } from '../../shared/http/route';

export const handler = route(eventRoutes.getEvent, async ({ tenant, params }) => ({ body: await getEvent(tenant, params.id) }));
