import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';
import { ownReview } from '../../shared/reviews/edit';
import { moderateReview } from '../../shared/reviews/moderate';
import { reviewRoutes } from '../../shared/reviews/routes';
import { reviewView } from '../../shared/reviews/views';

/** Sandbox test helper: the operators' moderation, on one of the caller's own sandbox reviews, at the sandbox clock's time. */
export const handler = route(reviewRoutes.moderateReviewTestHelper, async ({ tenant, params, body, seal }) => {
  const r = await moderateReview(params.id, body.action, seal(reviewView), tenantNow(tenant), (id) => ownReview(tenant, id));
  return { body: reviewView(r.review) };
});
