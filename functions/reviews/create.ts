import { route } from '../../shared/http/route';
import { createReview } from '../../shared/reviews/create';
import { reviewRoutes } from '../../shared/reviews/routes';
import { reviewView } from '../../shared/reviews/views';

export const handler = route(reviewRoutes.createReview, async ({ tenant, body, seal }) => ({
  body: reviewView(await createReview(tenant, body, seal(reviewView))),
}));
