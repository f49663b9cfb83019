import { getAdventure } from '../../shared/catalog/service';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.getAdventure, async ({ principal, params }) => ({ body: await getAdventure(principal, params.slug) }));
