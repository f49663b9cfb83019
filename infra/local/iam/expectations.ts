import { FALLBACK_HANDLER, grantsOf, PLATFORM_UNTESTED } from '../../../shared/platform/grants';
import { ROUTE_LIST } from '../../../shared/routes';
import type { Expectation } from './report';

/**
 * What the run's verdict expects of the API's functions, by principal: each route's function (by its id) may leave
 * unused only what its route accepts as untested (shared/platform/grants.ts grantsOf), the $default route's only the
 * platform's.
 */
export function routeExpectations(): Record<string, Expectation> {
  return {
    [`function:${FALLBACK_HANDLER}`]: { label: '$default', untested: PLATFORM_UNTESTED },
    ...Object.fromEntries(ROUTE_LIST.map((r) => [`function:${r.handler}`, { label: r.id, untested: grantsOf(r).untested }])),
  };
}
