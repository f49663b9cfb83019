import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';
import { listQuotes } from '../../shared/quotes/read';
import { quoteRoutes } from '../../shared/quotes/routes';
import { quoteSummaryView } from '../../shared/quotes/views';

const def = quoteRoutes.listQuotes;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(
    def.id,
    tenant,
    query,
    (after) => listQuotes(tenant, query.limit, after),
    (q) => quoteSummaryView(q, tenantNow(tenant)),
  ),
}));
