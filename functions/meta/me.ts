import { route } from '../../shared/http/route';
import { describeKey } from '../../shared/meta/me';
import { metaRoutes } from '../../shared/meta/routes';

export const handler = route(metaRoutes.getMe, async ({ principal }) => ({ body: describeKey(principal) }));
