import { listEvents } from '../../shared/events/read';
import { eventRoutes } from '../../shared/events/routes';
import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';

const def = eventRoutes.listEvents;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(
    def.id,
    tenant,
    query,
    (after) => listEvents(tenant, query, after),
    (e) => e,
  ),
}));
