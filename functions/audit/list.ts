import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { metaRoutes } from '../../shared/meta/routes';
import { auditEventView, listAudit } from '../../shared/platform/audit';

const def = metaRoutes.listAuditEvents;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => listAudit(tenant.partnerId, tenant.env, query.limit, after), auditEventView),
}));
