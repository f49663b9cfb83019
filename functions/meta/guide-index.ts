import { route } from '../../shared/http/route';
import { GUIDE_HEADERS, guidePage } from '../../shared/meta/guide-pages';
import { metaRoutes } from '../../shared/meta/routes';

/** The partner guides' index, rendered at build time (infra/guides.ts). */
export const handler = route(metaRoutes.getGuideIndex, async () => ({
  raw: { body: guidePage(), contentType: 'text/html; charset=utf-8' },
  headers: GUIDE_HEADERS,
}));
