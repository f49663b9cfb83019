import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS } from '../../shared/events/payloads';
import { EVENT_TYPES } from '../../shared/events/types';
import { pageQuery } from '../../shared/http/schemas';
import { ERROR_CODES } from '../../shared/kernel/errors';
import { buildOpenApi } from '../../shared/openapi';
import { ROUTE_LIST } from '../../shared/routes';

const doc = buildOpenApi() as any;
const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
  Object.entries<any>(ops).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, path, method, op })),
);
const webhookOps = Object.entries<Record<string, any>>(doc.webhooks).map(([type, item]) => ({ where: `webhook ${type}`, type, op: item.post }));
const resolveRef = (x: any, kind = 'schemas') => (x?.$ref ? doc.components[kind][x.$ref.split('/').pop()] : x);
const opOf = (id: string) => operations.find((o) => o.op.operationId === id)!.op;

/** Every example of the document: media examples of bodies and responses, and the schemas' own examples. */
function examples(): { where: string; schema: unknown; value: unknown }[] {
  const out: { where: string; schema: unknown; value: unknown }[] = [];
  for (const { where, op } of [...operations, ...webhookOps]) {
    const bodies = [['request', op.requestBody], ...Object.entries<any>(op.responses)] as [string, any][];
    for (const [status, x] of bodies)
      for (const [type, media] of Object.entries<any>(x?.content ?? {}))
        if ('example' in media) out.push({ where: `${where} ${status} ${type}`, schema: media.schema, value: media.example });
  }
  for (const [name, schema] of Object.entries<any>(doc.components.schemas))
    for (const value of schema.examples ?? []) out.push({ where: `components.schemas.${name}`, schema: { $ref: `#/components/schemas/${name}` }, value });
  return out;
}

/** Placeholders a generator leaves where it knew no real value. */
function placeholders(value: unknown, at = ''): string[] {
  if (typeof value === 'number') return Math.abs(value) >= Number.MAX_SAFE_INTEGER ? [`${at}: ${value}`] : [];
  if (typeof value === 'string') return /^example\b|^<[^>]*>$|^(string|lorem ipsum)$/i.test(value) ? [`${at}: ${JSON.stringify(value)}`] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, `${at}[${i}]`));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const own =
      'environment' in o && 'test_mode' in o && (o.environment === 'test') !== o.test_mode
        ? [`${at}: environment ${String(o.environment)} with test_mode ${String(o.test_mode)}`]
        : [];
    return [...own, ...Object.entries(o).flatMap(([k, v]) => placeholders(v, `${at}.${k}`))];
  }
  return [];
}

describe('the OpenAPI document (shared/openapi.ts)', () => {
  it('has examples without placeholders: no safe-integer bounds, no "example ..." text, /me in one environment', () => {
    const all = examples();
    expect(all.length).toBeGreaterThan(100);
    expect(all.flatMap((e) => placeholders(e.value, e.where))).toEqual([]);
    // Nor in the schemas: zod's safe-integer bounds say nothing a client can use.
    expect(JSON.stringify(doc)).not.toContain('9007199254740991');
    const me = opOf('getMe').responses['200'].content['application/json'].example;
    expect(me).toMatchObject({ environment: 'test', test_mode: true });
  });

  it('has examples that are valid against their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('binary', true);
    ajv.addSchema({ $id: 'https://doc.local/openapi.json', components: doc.components });
    const rebase = (s: unknown) => JSON.parse(JSON.stringify(s).replaceAll('"#/components/', '"https://doc.local/openapi.json#/components/'));
    const invalid: string[] = [];
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    for (const e of examples()) {
      const key = JSON.stringify(e.schema);
      const validate = compiled.get(key) ?? ajv.compile(rebase(e.schema));
      compiled.set(key, validate);
      if (!validate(e.value)) invalid.push(`${e.where}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(invalid).toEqual([]);
  }, 60_000);

  it('describes every event type as a webhook: the envelope, its data with every field explained, an example, the headers and the answers', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    // Every field of a schema, nested ones included, says what it means.
    const undescribed = (schema: any, at: string): string[] =>
      Object.entries<any>(resolveRef(schema)?.properties ?? {}).flatMap(([name, field]) => [
        ...(resolveRef(field).description ? [] : [`${at}.${name}`]),
        ...undescribed(field, `${at}.${name}`),
        ...undescribed(field.items, `${at}.${name}[]`),
      ]);
    for (const { where, type, op } of webhookOps) {
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+Event$/);
      const media = op.requestBody.content['application/json'];
      const envelope = resolveRef(media.schema);
      expect(envelope.required, where).toEqual(['id', 'type', 'created_at', 'test', 'data']);
      expect(envelope.properties.type, where).toMatchObject({ type: 'string', const: type });
      expect(envelope.additionalProperties, where).toBe(false);
      expect(undescribed(media.schema, type), where).toEqual([]);
      // The example is the one of a real event: its data is what the code recording the event is typed by.
      expect(media.example.type, where).toBe(type);
      expect(EVENT_PAYLOADS[type as keyof typeof EVENT_PAYLOADS].safeParse(media.example.data).success, where).toBe(true);
      expect(Object.keys(media.example.data).sort(), where).toEqual(Object.keys(resolveRef(envelope.properties.data).properties).sort());
      // The delivery headers: the spec's, the rotation's and the Standard Webhooks ones.
      const headers = op.parameters.map((p: any) => resolveRef(p, 'parameters'));
      expect(headers.every((h: any) => h.in === 'header' && h.description)).toBe(true);
      expect(Object.fromEntries(headers.map((h: any) => [h.name, h.required]))).toEqual({
        'X-Service-Signature': true,
        'X-Service-Signature-Next': false,
        'X-Service-Signature-Previous': false,
        'X-Service-Event-Id': true,
        'X-Service-Delivery-Id': true,
        'X-Service-Delivery-Attempt': true,
        'X-Service-Event-Type': true,
        'webhook-id': true,
        'webhook-timestamp': true,
        'webhook-signature': true,
      });
      expect(headers.find((h: any) => h.name === 'X-Service-Event-Type').schema.const).toBe(type);
      // Verification, replay protection and the answers a receiver gives.
      for (const said of ['X-Service-Signature', 'webhook-signature', '5 minutes', 'deduplicate on the event id', '10 seconds', '1 attempt plus 5 retries'])
        expect(op.description, `${where}: ${said}`).toContain(said);
      expect(Object.keys(op.responses), where).toEqual(['2XX', '4XX', 'default']);
      expect(op.responses['2XX'].description).toContain('10 seconds');
      expect(op.security, where).toEqual([]);
      expect(op.tags, where).toEqual(['Webhook events']);
    }
    expect(doc.tags.map((t: any) => t.name)).toContain('Webhook events');
  });

  it('documents query integers as integers and dates with format date, while the service still parses them from text', () => {
    for (const { where, op } of operations) {
      for (const p of op.parameters ?? []) {
        // No maximum: the service clamps a larger limit to 100 (the spec), which a validator must let through.
        if (p.name === 'limit') expect(p.schema, where).toEqual({ type: 'integer', minimum: 1, default: 25 });
        if (p.name === 'min_rating') expect(p.schema, where).toEqual({ type: 'integer', minimum: 1, maximum: 5 });
        if (['date', 'from', 'to'].includes(p.name)) expect(p.schema.format, `${where} ${p.name}`).toBe('date');
        // An integer written as a pattern of digits (^\d+$, ^[1-5]$) is a string to a generated client.
        if (p.in === 'query') expect(p.schema.pattern ?? '', `${where} ${p.name}: an integer as text`).not.toMatch(/^\^(\\d\+|\[\d-\d\])\$$/);
      }
    }
    expect(opOf('listAdventures').parameters.find((p: any) => p.name === 'limit')).toBeDefined();
    // The same query strings as before: digits, clamped to 100; anything else refused.
    expect(pageQuery.parse({}).limit).toBe(25);
    expect(pageQuery.parse({ limit: '2' }).limit).toBe(2);
    expect(pageQuery.parse({ limit: '500' }).limit).toBe(100);
    for (const bad of ['0', '-1', '1.5', 'abc', '', ' 2']) expect(pageQuery.safeParse({ limit: bad }).success, bad).toBe(false);
  });

  it('types response dates as format date, total_results as int64, and declares Content-Disposition on the document downloads', () => {
    const s = doc.components.schemas;
    const dates = {
      'QuoteSummary.start_date': s.QuoteSummary.properties.start_date,
      'Quote.start_date': s.Quote.properties.start_date,
      'Booking.travel_date': s.Booking.properties.travel_date,
      'BookingListItem.travel_date': s.BookingListItem.properties.travel_date,
      'Availability.data[].date': s.Availability.properties.data.items.properties.date,
      'AdventureUnavailableData.date': s.AdventureUnavailableData.properties.date.anyOf[0],
    };
    for (const [where, schema] of Object.entries<any>(dates)) expect(schema.format, where).toBe('date');
    expect(s.PageMeta.properties.total_results.format).toBe('int64');
    for (const id of ['getSettlementInvoice', 'getSettlementStatement']) {
      const disposition = opOf(id).responses['200'].headers['Content-Disposition'];
      expect(disposition?.schema, id).toEqual({ type: 'string' });
      expect(disposition?.description, id).toMatch(/^attachment; filename="(invoice|statement)-<number>\.(pdf|csv)"/);
    }
  });

  it('marks a body required only where the service refuses an empty one; complete and replay take {}', () => {
    for (const id of ['cancelBooking', 'testWebhook', 'runSettlementsTestHelper', 'paySettlementTestHelper', 'serviceCancelBookingTestHelper']) {
      expect(opOf(id).requestBody?.required, id).toBe(false);
    }
    for (const id of ['completeBookingTestHelper', 'replayWebhookDelivery']) {
      expect(opOf(id).requestBody, id).toMatchObject({ required: false });
      expect(opOf(id).requestBody.content['application/json'].example, id).toEqual({});
    }
    for (const id of ['createBooking', 'createQuote', 'createWebhook', 'updateWebhook', 'moderateReviewTestHelper'])
      expect(opOf(id).requestBody.required, id).toBe(true);
    // What the document says is what the route's schema does with an empty body (parse-request.ts takes it as {}).
    for (const r of ROUTE_LIST) if (r.request?.body) expect(opOf(r.id).requestBody.required, r.id).toBe(!r.request.body.safeParse({}).success);
  });

  it('gives each error response a schema whose code is the enum of its x-error-codes', () => {
    for (const { where, op } of operations) {
      for (const [status, res] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = res.content['application/json'].schema;
        // The fields every error has, without a code: a code enum narrowing a base's string code is what Java cannot compile.
        expect(schema.allOf[0], `${where} ${status}`).toEqual({ $ref: '#/components/schemas/ErrorFields' });
        expect(doc.components.schemas.ErrorFields.properties.code, `${where} ${status}`).toBeUndefined();
        expect(schema.allOf[1].properties.code.enum, `${where} ${status}`).toEqual(res['x-error-codes']);
        for (const code of res['x-error-codes']) expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status, code).toBe(Number(status));
      }
    }
  });

  it('requires the live signature headers of writes as a security scheme, version 2 first', () => {
    const { LiveTimestamp, LiveSignature, LiveSignatureVersion } = doc.components.securitySchemes;
    expect(LiveTimestamp).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Timestamp' });
    expect(LiveSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Signature' });
    expect(LiveSignature.description).toContain('"v2" LF timestamp LF METHOD LF path?query LF Idempotency-Key LF body');
    expect(LiveSignatureVersion).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Signature-Version' });
    for (const r of ROUTE_LIST) {
      const security = opOf(r.id).security;
      if (r.access === 'public') expect(security, r.id).toEqual([]);
      else if (r.write)
        expect(security, r.id).toEqual([
          { ApiKey: [], LiveTimestamp: [], LiveSignature: [], LiveSignatureVersion: [] },
          { ApiKey: [], LiveTimestamp: [], LiveSignature: [] },
          { ApiKey: [] },
        ]);
      else expect(security, r.id).toEqual([{ ApiKey: [] }]);
    }
  });
});
