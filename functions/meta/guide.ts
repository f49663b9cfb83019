import { route } from '../../shared/http/route';
import { GUIDE_HEADERS, guidePage } from '../../shared/meta/guide-pages';
import { metaRoutes } from '../../shared/meta/routes';

/** One partner guide, rendered at build time (infra/guides.ts). */
export const handler = route(metaRoutes.getGuide, async ({ params }) => ({
  raw: { body: guidePage(params.name), contentType: 'text/html; charset=utf-8' },
  headers: GUIDE_HEADERS,
}));
