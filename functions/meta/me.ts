import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { describeKey } from '../../shared/team/me';

export const handler = route(ROUTES.getMe, async ({ principal }) => ({ body: describeKey(principal) }));
