type Json = Record<string, unknown>;

/** Strings whose format says what a real value looks like. */
const BY_FORMAT: Record<string, string> = {
  date: '2026-12-01',
  'date-time': '2026-11-21T09:27:45.000Z',
  email: 'amina@example.com',
  uri: 'https://bank.example/webhooks/travel',
  url: 'https://bank.example/webhooks/travel',
};

const ADVENTURE = 'marrakech-sunrise-balloon-flight';
const PHOTO = 'https://photos.partner-travel.example/reviews/6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b/display.jpg';
const SETTLEMENT = '3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b';
/** Leaves an optional field out of the example. */
const OMIT = Symbol('omit');

/**
 * Realistic values by field, one sandbox world: a balloon flight over Marrakech
 * quoted, booked and settled with a sandbox key. Keys are `Owner.field`, where the
 * owner is the component (`Settlement`) or, inside an inline object, the field that
 * holds it (`partner.name`), or `field` alone. A value is used only where it fits
 * the schema (type, enum, pattern, bounds); `null` picks the null of a nullable
 * field (what a CONFIRMED booking, a DELIVERED delivery or a READY file carry).
 */
const VALUES: Record<string, unknown> = {
  // Me, keys, members, audit
  environment: 'test',
  test_mode: true,
  test: true,
  'partner.name': 'Demo Bank',
  'key.id': 'k3v9x2m7p4q8',
  'ApiKey.id': 'k3v9x2m7p4q8',
  'ApiKeyWithSecret.id': 'k3v9x2m7p4q8',
  'ApiKeyWithSecret.key': 'sk_test_k3v9x2m7p4q8_7Hq2Lx9Vb4Nc8Rt1Ws6Yk3Pz5Md0Fg2J',
  key_prefix: 'k3v9x2m7p4q8',
  key_id: 'k3v9x2m7p4q8',
  revoked_at: null,
  scopes: ['catalog:read', 'quotes:write', 'bookings:write', 'bookings:read'],
  limit_per_minute: 600,
  remaining: 599,
  reset: 1795771725,
  'AuditEvent.id': '6b0f3a52-1d4e-4c55-8a2b-0c9d8e7f6a15',
  'AuditEvent.method': 'POST',
  'AuditEvent.path': '/v1/bookings',
  'AuditEvent.status': 201,
  request_id: '6b0f3a52-1d4e-4c55-8a2b-0c9d8e7f6a15',
  idempotent_replayed: false,
  is_you: true,
  first_name: 'Amina',
  last_name: 'El Idrissi',
  // Pages: one item, the last page
  count: 1,
  next_cursor: null,
  page_size: 25,
  total_results: 1,
  page_number: 1,
  // Catalog
  slug: ADVENTURE,
  adventure_slug: ADVENTURE,
  adventure: ADVENTURE,
  title: 'Sunrise hot-air balloon flight over Marrakech',
  adventure_title: 'Sunrise hot-air balloon flight over Marrakech',
  summary: 'An hour over the palm groves at dawn, then breakfast in a Berber village.',
  'Adventure.description':
    'Lift off at dawn from the palm groves north of Marrakech for an hour over the Atlas foothills, then share a Berber breakfast in a village of the Haouz plain.',
  city: 'Marrakech',
  category: 'ADVENTURE',
  agency_name: 'Marrakech Sky Tours',
  'agency.name': 'Marrakech Sky Tours',
  lat: 31.6295,
  lng: -7.9811,
  duration_minutes: 240,
  rating: 4.8,
  review_count: 128,
  popularity: 87,
  distance_km: OMIT,
  image: `https://images.partner-travel.example/adventures/${ADVENTURE}/cover.jpg`,
  images: [`https://images.partner-travel.example/adventures/${ADVENTURE}/cover.jpg`],
  booking_modes: ['SCHEDULED'],
  'RatePack.name': 'Shared basket',
  'rate_pack.name': 'Shared basket',
  rate_pack_name: 'Shared basket',
  'RatePack.description': 'A shared basket of up to 16 passengers, hotel pick-up and breakfast included.',
  booking_mode: 'SCHEDULED',
  min_travelers: 1,
  max_travelers: 16,
  booking_window_days: 180,
  weekdays: [1, 2, 3, 4, 5, 6, 7],
  start_times: ['06:00'],
  capacity_per_departure: 16,
  daily_capacity: OMIT,
  capacity: 16,
  'data.remaining': 9,
  start_time: '06:00',
  code: 'ADULT',
  label: 'Adult',
  min_age: 18,
  max_age: 99,
  'cancellation_policy.code': 'FLEX_48H',
  'policy.code': 'FLEX_48H',
  policy_code: 'FLEX_48H',
  'cancellation_policy.description': 'Full refund up to 48 hours before the start, none after.',
  'policy.description': 'Full refund up to 48 hours before the start, none after.',
  hours_before: 48,
  refund_percent: 100,
  hours_before_start: 165.5,
  // Quotes and bookings
  age: 35,
  index: 0,
  'Quote.booking_number': null,
  'Quote.expires_at': '2026-11-21T09:57:45.000Z',
  'QuoteSummary.expires_at': '2026-11-21T09:57:45.000Z',
  expired: false,
  partner_reference: 'BANK-2026-000123',
  customer_reference: 'customer-8812',
  initials: 'A. E.',
  payment_reference: 'TRX-2026-118274',
  payment_confirmation: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImJhbmsta2V5LTEifQ.eyJxdW90ZV9pZCI6Ijkx.c2lnbmF0dXJl',
  cancellation: null,
  completed_at: null,
  reason: 'The customer changed travel dates',
  cancellable: true,
  // Settlements
  'Settlement.number': 'TEST-PTS-000012',
  'Settlement.status': 'PAID',
  period: '2026-11',
  period_start: '2026-11-01',
  period_end: '2026-11-30',
  issue_date: '2026-12-01',
  due_date: '2026-12-31',
  issued_at: '2026-12-01T00:05:00.000Z',
  paid_at: '2026-12-03T10:12:00.000Z',
  booking_count: 12,
  line_count: 12,
  transfer_reference: 'SIMULATED-9c1e8b7d',
  invoice_pdf: `/v1/settlements/${SETTLEMENT}/invoice.pdf`,
  statement_csv: `/v1/settlements/${SETTLEMENT}/statement.csv`,
  transfer_expected: false,
  beneficiary: 'Partner Travel Services SARL',
  bank: 'Banque Exemple du Maroc, agence Casablanca Anfa',
  rib: '011 780 0000123456789012 34',
  'payment_instructions.reference': 'TEST-PTS-000012',
  'SettlementLine.adventure': 'Sunrise hot-air balloon flight over Marrakech',
  'SettlementLine.kind': 'BOOKING',
  'SettlementLine.status': 'COMPLETED',
  adjusts: null,
  reviewable_name: 'Sunrise hot-air balloon flight over Marrakech',
  reviewable_slug: ADVENTURE,
  // Webhooks
  url: 'https://bank.example/webhooks/travel',
  'WebhookEndpoint.description': 'Booking events for the core banking system',
  'WebhookEndpointWithSecret.description': 'Booking events for the core banking system',
  'WebhookEndpointListed.description': 'Booking events for the core banking system',
  'CreateWebhookRequest.description': 'Booking events for the core banking system',
  'UpdateWebhookRequest.description': 'Booking events for the core banking system',
  'endpoint.description': 'Booking events for the core banking system',
  'UpdateWebhookRequest.status': 'DISABLED',
  signing_secret: 'whsec_Jx8v2QmL4tR7nB1cY6wE9kP3sH5dF0gA2zU8oI4rT1e',
  last_http_status: 200,
  http_status: 200,
  attempts: 1,
  'WebhookDeliveryAttempt.number': 1,
  response_time_ms: 142,
  error: null,
  last_error: null,
  'WebhookDelivery.status': 'DELIVERED',
  'WebhookDeliveryDetail.status': 'DELIVERED',
  next_attempt_at: null,
  dead_lettered_at: null,
  replay_of: null,
  test_send: false,
  delivered: true,
  // Files and reviews
  'File.status': 'READY',
  'CreatedFile.status': 'PENDING_UPLOAD',
  'CreatedFile.url': null,
  'File.url': PHOTO,
  'CreatedFile.thumbnail_url': null,
  thumbnail_url: PHOTO.replace('display', 'thumbnail'),
  photo_thumbnail_urls: [PHOTO.replace('display', 'thumbnail')],
  'File.expires_at': '2026-11-22T09:27:45.000Z',
  'CreatedFile.expires_at': '2026-11-22T09:27:45.000Z',
  upload_expires_at: '2026-11-21T09:42:45.000Z',
  'upload.url': 'https://ptbs-review-photos.s3.eu-west-3.amazonaws.com/',
  fields: {
    key: 'photos/pending/6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b',
    'Content-Type': 'image/jpeg',
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Date': '20261121T092745Z',
  },
  'File.attached': false,
  'CreatedFile.attached': false,
  rejection_reason: null,
  size_bytes: 482133,
  'Review.title': 'Worth the early start',
  'CreateReviewRequest.title': 'Worth the early start',
  'UpdateReviewRequest.title': 'Worth the early start',
  comment: 'We flew over the palm groves at sunrise; the crew was attentive and the breakfast generous.',
  author_name: 'Amina E.',
  author_avatar: null,
  'Review.rating': 5,
  'CreateReviewRequest.rating': 5,
  'UpdateReviewRequest.rating': 5,
  helpful_count: 3,
  photo_urls: [PHOTO],
  photo_ids: ['6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b'],
  agency_reply: 'Thank you, Amina: we hope to fly with you again.',
  moderated_at: null,
  booking_number: 'PTB-7K3M-Q9XD',
};

/** Strings by the field's name, where neither a value above nor a format applies. */
const BY_NAME: [RegExp, string][] = [
  [/(^|_)date$|_from$|_to$|^from$|^to$/, '2026-12-01'],
  [/_at$|^valid_until$/, '2026-11-21T09:27:45.000Z'],
  [/time$/, '06:00'],
  [/email/, 'amina@example.com'],
  // An API key's name (the only `name` without an example of its own): what a bank would call one system's key.
  [/^name$/, 'payments-prod-eu1'],
  [/^currency$/, 'MAD'],
  [/phone/, '+212 600 000 000'],
];

/** Values that fit common patterns (Money amounts, dates, times, months, key ids). */
const BY_PATTERN = ['400.00', '2026-12-01', '06:00', '2026-11', '25', 'PTB-7K3M-Q9XD', 'k3v9x2m7p4q8', '2026-11-21T09:27:45.000Z'];

/** Bounds zod writes for every integer (the safe integers): they say nothing of a realistic value. */
const SAFE = Number.MAX_SAFE_INTEGER;

function resolve(s: unknown, components: Record<string, unknown>): Json | undefined {
  if (!s || typeof s !== 'object') return undefined;
  const j = s as Json;
  return typeof j.$ref === 'string' ? resolve(components[j.$ref.split('/').pop()!], components) : j;
}

/** Whether a scalar (or a simple array) fits a schema: type, const, enum, pattern, format-free bounds. */
function fits(value: unknown, schema: unknown, components: Record<string, unknown>): boolean {
  const s = resolve(schema, components);
  if (!s) return false;
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) return (s[k] as unknown[]).some((a) => fits(value, a, components));
  if ('const' in s) return s.const === value;
  if (Array.isArray(s.enum)) return s.enum.includes(value);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const typeOf = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length && !types.some((t) => t === typeOf || (t === 'number' && typeOf === 'integer'))) return false;
  if (typeof value === 'string') {
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) return false;
    if (typeof s.minLength === 'number' && value.length < s.minLength) return false;
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) return false;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return false;
    if (typeof s.maximum === 'number' && value > s.maximum) return false;
  }
  if (Array.isArray(value)) {
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) return false;
    return value.every((v) => (s.items ? fits(v, s.items, components) : true));
  }
  return true;
}

/** A UUID v4 of its own for each field, so that an example's ids differ as real ones do. */
function uuidFor(key: string): string {
  let h = 0x811c9dc5;
  const hex: string[] = [];
  for (let round = 0; hex.join('').length < 32; round++) {
    for (const c of `${key}#${round}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    hex.push(h.toString(16).padStart(8, '0'));
  }
  const x = hex.join('').slice(0, 32);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-${'89ab'[Number.parseInt(x[16]!, 16) % 4]}${x.slice(17, 20)}-${x.slice(20, 32)}`;
}

function stringFor(s: Json, name: string, owner: string): string {
  if (s.format === 'uuid') return uuidFor(`${owner}.${name}`);
  if (typeof s.format === 'string' && BY_FORMAT[s.format]) return BY_FORMAT[s.format]!;
  const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : undefined;
  const named = BY_NAME.find(([re, v]) => re.test(name) && (!pattern || pattern.test(v)));
  if (named) return named[1];
  const hit = pattern && BY_PATTERN.find((c) => pattern.test(c));
  if (hit) return hit;
  // No realistic value is known for this field: a visible placeholder, which test/unit/openapi-document.test.ts refuses.
  return `<${name || 'value'}>`;
}

function numberFor(s: Json): number {
  const min = typeof s.minimum === 'number' && s.minimum > -SAFE ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : undefined;
  const max = typeof s.maximum === 'number' && s.maximum < SAFE ? s.maximum : undefined;
  return Math.min(min ?? 1, max ?? Number.POSITIVE_INFINITY);
}

/**
 * A value that fits a JSON schema of the document, for the operations whose
 * route gives no example of its own: the schema's own examples and constants,
 * the realistic values above where they fit, then defaults, enums, and values
 * that fit formats and patterns. `owner` is the component or field holding
 * `name`. test/unit/openapi-document.test.ts validates every example against its
 * schema and refuses placeholders.
 */
export function sampleOf(schema: unknown, components: Record<string, unknown>, name = '', depth = 0, owner = ''): unknown {
  if (!schema || typeof schema !== 'object' || depth > 12) return null;
  const s = schema as Json;
  if (typeof s.$ref === 'string') {
    const id = s.$ref.split('/').pop()!;
    return sampleOf(components[id], components, name, depth + 1, name ? owner : id);
  }
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('const' in s) return s.const;
  for (const key of [`${owner}.${name}`, name]) {
    if (name && key in VALUES && VALUES[key] !== OMIT && fits(VALUES[key], s, components)) return VALUES[key];
  }
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.length) {
      const notNull = alts.find((a) => (a as Json)?.type !== 'null') ?? alts[0];
      return sampleOf(notNull, components, name, depth + 1, owner);
    }
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((a) => sampleOf(a, components, name, depth + 1, owner) as object));
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      // Inside an inline object, its fields belong to the field that holds it (partner.name, agency.name).
      const inner = name || owner;
      for (const [k, v] of Object.entries((s.properties as Json | undefined) ?? {})) {
        const omitted = [`${inner}.${k}`, k].find((key) => key in VALUES);
        if (omitted && VALUES[omitted] === OMIT && !((s.required as string[] | undefined) ?? []).includes(k)) continue;
        out[k] = sampleOf(v, components, k, depth + 1, inner);
      }
      return out;
    }
    case 'array':
      return typeof s.maxItems === 'number' && s.maxItems === 0 ? [] : [sampleOf(s.items, components, '', depth + 1, name || owner)];
    case 'string':
      return stringFor(s, name, owner);
    case 'integer':
    case 'number':
      return numberFor(s);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return s.properties ? sampleOf({ ...s, type: 'object' }, components, name, depth + 1, owner) : {};
  }
}
