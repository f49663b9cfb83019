import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { listReviews } from '../../shared/reviews/read';
import { reviewRoutes } from '../../shared/reviews/routes';
import { reviewView } from '../../shared/reviews/views';

const def = reviewRoutes.listReviews;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => listReviews(tenant, query, after), reviewView),
}));
