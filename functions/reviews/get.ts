import { route } from '../../shared/http/route';
import { getReview } from '../../shared/reviews/read';
import { reviewRoutes } from '../../shared/reviews/routes';
import { reviewView } from '../../shared/reviews/views';

export const handler = route(reviewRoutes.getReview, async ({ tenant, params }) => ({ body: reviewView(await getReview(tenant, params.id)) }));
