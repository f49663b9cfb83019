import { catalogRoutes } from '../../shared/catalog/routes';
import { getAdventure } from '../../shared/catalog/service';
import { route } from '../../shared/http/route';

export const handler = route(catalogRoutes.getAdventure, async ({ tenant, params }) => ({ body: await getAdventure(tenant, params.slug) }));
