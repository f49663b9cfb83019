import type { ApiEvent } from './types';

/** A request header, whatever its case. */
export function headerValue(event: ApiEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const v = headers[name] ?? headers[name.toLowerCase()];
  if (v !== undefined) return v;
  const found = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return found ? headers[found] : undefined;
}

/** The path as sent, with its raw query string: what signatures and idempotency fingerprints cover. */
export function pathWithQuery(event: ApiEvent): string {
  return event.rawQueryString ? `${event.rawPath}?${event.rawQueryString}` : event.rawPath;
}
