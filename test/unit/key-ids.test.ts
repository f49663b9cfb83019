import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../shared/access/model';
import { AuditEvent as AuditEventSchema } from '../../shared/meta/schemas';
import { buildOpenApi } from '../../shared/openapi';
import { type AuditEvent, auditEventView } from '../../shared/platform/audit';
import { ApiKey } from '../../shared/team/schemas';
import { keyView } from '../../shared/team/views';

type Json = { properties?: Record<string, Json>; anyOf?: Json[]; deprecated?: boolean; [k: string]: unknown };
const doc = buildOpenApi() as { components: { schemas: Record<string, Json> } };
const schemas = doc.components.schemas;
const objectOf = (s: Json): Json => s.anyOf?.find((a) => a.properties) ?? s;

describe("an API key's id has one name, key_id (issue 41, 4)", () => {
  it('is key_id in API keys, GET /me, audit events and request logs; the older names are deprecated aliases', () => {
    const holders: [string, Json][] = [
      ['ApiKey', schemas.ApiKey!],
      ['ApiKeyWithSecret', schemas.ApiKeyWithSecret!],
      ['Me.key', objectOf(schemas.Me!.properties!.key!)],
      ['AuditEvent', schemas.AuditEvent!],
      ['RequestLogEntry', schemas.RequestLogEntry!],
    ];
    for (const [name, s] of holders) {
      expect(s.properties?.key_id, name).toBeDefined();
      expect(s.properties!.key_id!.deprecated, name).toBeUndefined();
    }
    expect(schemas.ApiKey!.properties!.id!.deprecated).toBe(true);
    expect(objectOf(schemas.Me!.properties!.key!).properties!.id!.deprecated).toBe(true);
    expect(schemas.AuditEvent!.properties!.key_prefix!.deprecated).toBe(true);
  });

  it('answers the alias with the same value as key_id', () => {
    const record = {
      key_id: 'k3m9q2x7w4p1',
      partner_id: 'p',
      member_id: '7f734a3d-0000-4000-8000-000000000001',
      env: 'test',
      secret_hash: 'h',
      created_at: '2026-11-01T00:00:00.000Z',
    } as ApiKeyRecord;
    const key = ApiKey.parse(keyView(record));
    expect(key).toMatchObject({ key_id: 'k3m9q2x7w4p1', id: 'k3m9q2x7w4p1' });
    // An audit line is stored with key_prefix (lines written before key_id included): the API answers both.
    const line: AuditEvent = {
      id: 'r',
      occurred_at: '2026-11-01T00:00:00.000Z',
      member_id: record.member_id,
      key_prefix: 'k3m9q2x7w4p1',
      environment: 'test',
      method: 'POST',
      path: '/v1/webhooks',
      status: 201,
      request_id: 'r',
      idempotent_replayed: false,
    };
    expect(AuditEventSchema.parse(auditEventView(line))).toMatchObject({ key_id: 'k3m9q2x7w4p1', key_prefix: 'k3m9q2x7w4p1', via: 'api_key' });
    expect(auditEventView({ ...line, key_prefix: null, via: 'console' })).toMatchObject({ key_id: null, key_prefix: null });
  });
});
