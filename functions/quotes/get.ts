import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';
import { getQuote } from '../../shared/quotes/read';
import { quoteRoutes } from '../../shared/quotes/routes';
import { quoteView } from '../../shared/quotes/views';

export const handler = route(quoteRoutes.getQuote, async ({ tenant, params }) => ({ body: quoteView(await getQuote(tenant, params.id), tenantNow(tenant)) }));
