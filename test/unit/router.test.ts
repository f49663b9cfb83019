import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../shared/http/router';

describe('route matching', () => {
  it('matches a route of the table', () => {
    expect(matchRoute('GET', '/v1/health')).toMatchObject({ kind: 'route', route: { id: 'getHealth' } });
  });
  it('tells 405 from 404', () => {
    expect(matchRoute('POST', '/v1/health')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
    expect(matchRoute('GET', '/v1/healthz')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/health')).toEqual({ kind: 'not_found' });
  });
});
