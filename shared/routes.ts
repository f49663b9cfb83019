import { bookingRoutes } from './bookings/routes';
import { catalogRoutes } from './catalog/routes';
import { clockRoutes } from './clock/routes';
import { eventRoutes } from './events/routes';
import { fileRoutes } from './files/routes';
import type { RouteDef } from './http/route-def';
import { metaRoutes } from './meta/routes';
import { quoteRoutes } from './quotes/routes';
import { requestLogRoutes } from './request-logs/routes';
import { reviewRoutes } from './reviews/routes';
import { settlementRoutes } from './settlements/routes';
import { teamRoutes } from './team/routes';
import { webhookRoutes } from './webhooks/routes';

/**
 * The route table: every feature's routes merged. It is the one source of
 * truth for the CDK API Gateway routes, the local runtime's router and the
 * OpenAPI document. Handlers import their own feature's table instead, so a
 * function bundles only its feature's schemas.
 */
export const ROUTES = {
  ...metaRoutes,
  ...requestLogRoutes,
  ...teamRoutes,
  ...catalogRoutes,
  ...quoteRoutes,
  ...bookingRoutes,
  ...settlementRoutes,
  ...webhookRoutes,
  ...clockRoutes,
  ...eventRoutes,
  ...reviewRoutes,
  ...fileRoutes,
};

export type RouteId = keyof typeof ROUTES;
export const ROUTE_LIST: RouteDef[] = Object.values(ROUTES);
