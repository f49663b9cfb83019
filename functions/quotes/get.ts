import { route } from '../../shared/http/route';
import { getQuote, quoteView } from '../../shared/quotes/service';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.getQuote, async ({ principal, params }) => ({ body: quoteView(await getQuote(principal, params.id)) }));
