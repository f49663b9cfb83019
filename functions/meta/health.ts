import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.getHealth, async () => ({ body: { status: 'ok' } }));
