import { route } from '../../shared/http/route';
import { createQuote } from '../../shared/quotes/create';
import { quoteRoutes } from '../../shared/quotes/routes';
import { quoteView } from '../../shared/quotes/views';

export const handler = route(quoteRoutes.createQuote, async ({ tenant, body, seal }) => ({
  body: quoteView(
    await createQuote(
      tenant,
      body,
      seal((q) => quoteView(q)),
    ),
  ),
}));
