import { availability } from '../../shared/catalog/service';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.getAvailability, async ({ principal, params, query }) => ({ body: await availability(principal, params.slug, query) }));
