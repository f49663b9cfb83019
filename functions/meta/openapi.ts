import { route } from '../../shared/http/route';
import { buildOpenApi } from '../../shared/openapi';
import { ROUTES } from '../../shared/routes';

let doc: Record<string, unknown> | undefined;

export const handler = route(ROUTES.getOpenApi, async () => ({ body: (doc ??= buildOpenApi()), headers: { 'cache-control': 'public, max-age=300' } }));
