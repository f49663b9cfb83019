type Json = Record<string, unknown>;

/** Strings whose pattern or format says what a real value looks like (Money, dates, times, counts). */
const BY_FORMAT: Record<string, string> = {
  uuid: '3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b',
  date: '2026-12-01',
  'date-time': '2026-11-21T09:27:45.000Z',
  email: 'amina@example.com',
  uri: 'https://bank.example/webhooks/travel',
  url: 'https://bank.example/webhooks/travel',
};

function stringFor(s: Json, name: string): string {
  if (typeof s.format === 'string' && BY_FORMAT[s.format]) return BY_FORMAT[s.format]!;
  const pattern = typeof s.pattern === 'string' ? s.pattern : '';
  const byName: [RegExp, string][] = [
    [/(^|_)date$|^date$|_from$|_to$|^from$|^to$/, '2026-12-01'],
    [/_at$/, '2026-11-21T09:27:45.000Z'],
    [/time$/, '09:00'],
    [/^booking_number$/, 'PTB-7K3M-Q9XD'],
    [/^period_/, '2026-11'],
    [/email/, 'amina@example.com'],
    [/^currency$/, 'MAD'],
    [/phone/, '+212 600 000 000'],
  ];
  const named = byName.find(([re, v]) => re.test(name) && (!pattern || new RegExp(pattern).test(v)));
  if (named) return named[1];
  const candidates = ['400.00', '2026-12-01', '09:00', '2026-11', '25', 'PTB-7K3M-Q9XD', 'a1b2c3d4e5f6', '2026-11-21T09:27:45.000Z'];
  if (pattern) {
    const re = new RegExp(pattern);
    const hit = candidates.find((c) => re.test(c));
    if (hit) return hit;
  }
  const base = name ? `example ${name.replaceAll('_', ' ')}` : 'example';
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Number.POSITIVE_INFINITY;
  return base.padEnd(min, '.').slice(0, max);
}

/**
 * A value that fits a JSON schema of the document, for the operations whose
 * route gives no example of its own: the schema's own examples, defaults,
 * constants and enums first, then values that fit its formats and patterns.
 * Redocly's `no-invalid-media-type-examples` rule checks each one against
 * its schema (test/integration/openapi.test.ts).
 */
export function sampleOf(schema: unknown, components: Record<string, unknown>, name = '', depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 12) return null;
  const s = schema as Json;
  if (typeof s.$ref === 'string') return sampleOf(components[s.$ref.split('/').pop()!], components, name, depth + 1);
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('const' in s) return s.const;
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.length) {
      const notNull = alts.find((a) => (a as Json)?.type !== 'null') ?? alts[0];
      return sampleOf(notNull, components, name, depth + 1);
    }
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((a) => sampleOf(a, components, name, depth + 1) as object));
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [k, v] of Object.entries((s.properties as Json | undefined) ?? {})) out[k] = sampleOf(v, components, k, depth + 1);
      return out;
    }
    case 'array':
      return typeof s.maxItems === 'number' && s.maxItems === 0 ? [] : [sampleOf(s.items, components, name, depth + 1)];
    case 'string':
      return stringFor(s, name);
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return s.properties ? sampleOf({ ...s, type: 'object' }, components, name, depth + 1) : {};
  }
}
