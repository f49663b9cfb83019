import { route } from '../../shared/http/route';
import { metaRoutes } from '../../shared/meta/routes';

export const handler = route(metaRoutes.getHealth, async () => ({ body: { status: 'ok' as const } }));
