import { route } from '../../shared/http/route';
import { editReview } from '../../shared/reviews/edit';
import { reviewRoutes } from '../../shared/reviews/routes';
import { reviewView } from '../../shared/reviews/views';

export const handler = route(reviewRoutes.updateReview, async ({ tenant, params, body, seal }) => ({
  body: reviewView(await editReview(tenant, params.id, body ?? {}, seal(reviewView))),
}));
