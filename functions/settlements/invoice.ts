import { route } from '../../shared/http/route';
import { documentResult, settlementDocument } from '../../shared/settlements/read';
import { settlementRoutes } from '../../shared/settlements/routes';

/** The PDF invoice, inline (base64 through API Gateway) or, beyond the Lambda answer limit, a 303 to a presigned S3 URL. */
export const handler = route(settlementRoutes.getSettlementInvoice, async ({ tenant, params }) =>
  documentResult(await settlementDocument(tenant, params.id, 'invoice'), 'application/pdf'),
);
