import { route } from '../../shared/http/route';
import { metaRoutes } from '../../shared/meta/routes';
import { buildOpenApi } from '../../shared/openapi';

let doc: Record<string, unknown> | undefined;

export const handler = route(metaRoutes.getOpenApi, async () => {
  doc ??= buildOpenApi();
  return { body: doc, headers: { 'cache-control': 'public, max-age=300' } };
});
