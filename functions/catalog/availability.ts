import { catalogRoutes } from '../../shared/catalog/routes';
import { availability } from '../../shared/catalog/service';
import { route } from '../../shared/http/route';

export const handler = route(catalogRoutes.getAvailability, async ({ tenant, params, query }) => ({ body: await availability(tenant, params.slug, query) }));
