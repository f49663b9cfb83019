import { route } from '../../shared/http/route';
import { createQuote, quoteView } from '../../shared/quotes/service';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.createQuote, async ({ principal, body }) => ({ status: 201, body: quoteView(await createQuote(principal, body)) }));
