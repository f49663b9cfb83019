import { route } from '../../shared/http/route';
import { metaRoutes } from '../../shared/meta/routes';
import { buildOpenApi } from '../../shared/openapi';

let doc: Record<string, unknown> | undefined;

export const handler = route(metaRoutes.getOpenApi, async () => ({ body: (doc ??= buildOpenApi()), headers: { 'cache-control': 'public, max-age=300' } }));
