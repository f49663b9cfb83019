import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';
import { createQuote } from '../../shared/quotes/create';
import { quoteRoutes } from '../../shared/quotes/routes';
import { quoteView } from '../../shared/quotes/views';

export const handler = route(quoteRoutes.createQuote, async ({ tenant, body, seal }) => {
  const now = tenantNow(tenant);
  return {
    body: quoteView(
      await createQuote(
        tenant,
        body,
        seal((q) => quoteView(q, now)),
        now,
      ),
      now,
    ),
  };
});
