import { route } from '../../shared/http/route';
import { documentResult, settlementDocument } from '../../shared/settlements/read';
import { settlementRoutes } from '../../shared/settlements/routes';

/** The CSV statement, inline or, beyond the Lambda answer limit, a 303 to a presigned S3 URL. */
export const handler = route(settlementRoutes.getSettlementStatement, async ({ tenant, params }) =>
  documentResult(await settlementDocument(tenant, params.id, 'statement'), 'text/csv; charset=utf-8'),
);
