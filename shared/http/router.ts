import { ROUTE_LIST } from '../routes';
import type { HttpMethod, RouteDef } from './route-def';

interface Compiled {
  route: RouteDef;
  regex: RegExp;
  names: string[];
}

const compiled: Compiled[] = ROUTE_LIST.map((route) => {
  const names: string[] = [];
  const pattern = route.path
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(m[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { route, regex: new RegExp(`^${pattern}$`), names };
});

export type RouteMatch =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

/**
 * Matches a request against the route table the way API Gateway does: literal
 * segments win over parameters (so /webhooks/deliveries beats /webhooks/{id}).
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const candidates = compiled
    .map((c) => ({ c, m: c.regex.exec(path) }))
    .filter((x): x is { c: Compiled; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => a.c.names.length - b.c.names.length);
  if (candidates.length === 0) return { kind: 'not_found' };
  const forMethod = candidates.find((x) => x.c.route.method === method);
  if (!forMethod) {
    return { kind: 'method_not_allowed', allowed: [...new Set(candidates.map((x) => x.c.route.method))] };
  }
  const params: Record<string, string> = {};
  forMethod.c.names.forEach((n, i) => {
    const raw = forMethod.m[i + 1]!;
    try {
      params[n] = decodeURIComponent(raw);
    } catch {
      // A malformed escape is left as sent; the route's path schema refuses it with a 400.
      params[n] = raw;
    }
  });
  return { kind: 'route', route: forMethod.c.route, params };
}
