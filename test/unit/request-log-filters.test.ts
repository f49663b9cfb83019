import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RequestLogParams, RequestLogQuery } from '../../shared/request-logs/schemas';

const takes = (query: Record<string, string>) => RequestLogQuery.safeParse(query).success;

/** The request log's request_id and idempotency_key filters take only what the service could have given or received. */
describe('the request log filters', () => {
  it("request_id: only the shapes X-Request-Id has, API Gateway's id or a lowercase UUID (filter and path)", () => {
    const refused = ['anything', randomUUID().toUpperCase(), 'ALt0lgP-IAMEZPA', 'ALt0lgP-IAMEZPAx=', 'sk_test_abc@bank.example', ''];
    for (const id of refused) {
      expect(takes({ request_id: id }), id).toBe(false);
      expect(RequestLogParams.safeParse({ request_id: id }).success, id).toBe(false);
    }
    // An HTTP API's requestId (its apigw-requestid header); a UUID: the local stack's, or one made for an event without an id.
    for (const id of ['ALt0lgP-IAMEZPA=', 'bGszoiPiBcwEJuw=', randomUUID()]) {
      expect(takes({ request_id: id }), id).toBe(true);
      expect(RequestLogParams.safeParse({ request_id: id }).success, id).toBe(true);
    }
  });

  it("idempotency_key: the spec's rule, any non-blank value of at most 255 characters", () => {
    for (const key of ['   ', '\u3000', '', 'k'.repeat(256)]) expect(takes({ idempotency_key: key }), JSON.stringify(key)).toBe(false);
    for (const key of ['k'.repeat(255), ' order 42', randomUUID(), 'é']) expect(takes({ idempotency_key: key }), key).toBe(true);
  });
});
