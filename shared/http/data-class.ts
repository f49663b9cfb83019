import * as z from 'zod';

/**
 * What a field's values are, declared in its zod metadata (`dataClass`), on every field of the route table's
 * request and response schemas (issue 40):
 * - public: what the service defines or a closed form can hold (ids, enums, amounts, dates, counts);
 * - personal: data about a person, and free text, which may name one (names, contacts, a review's comment);
 * - secret: what grants access or proves a payment (keys, signing secrets, tokens, payment confirmations, webhook URLs).
 * The request log keeps public values only (shared/request-logs/redact.ts). shared/openapi.ts leaves the
 * metadata out of the OpenAPI document.
 */
export const DATA_CLASSES = ['public', 'personal', 'secret'] as const;
export type DataClass = (typeof DATA_CLASSES)[number];

type Schema = z.core.$ZodType;

const classed =
  (dataClass: DataClass) =>
  <T extends z.ZodType>(schema: T): T =>
    schema.meta({ dataClass }) as T;

/**
 * Values the log may keep, when they pass the field's schema, and `form` if given (for a field whose schema
 * takes more than its public values: a booking number the domain checks itself). A public request field must
 * refuse free text (test/unit/data-classes.test.ts).
 */
export const pub = <T extends z.ZodType>(schema: T, form?: RegExp): T => schema.meta({ dataClass: 'public', ...(form ? { publicForm: form } : {}) }) as T;
/** Data about a person, or free text that may hold some. */
export const personal = classed('personal');
/** Credentials and proofs. */
export const secret = classed('secret');

/** The schema a wrapper (optional, nullable, default, a pipe's input...) stands for; undefined for any other schema. */
export function wrapped(schema: Schema): Schema | undefined {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return def.innerType as Schema;
    case 'pipe':
      return def.in as Schema;
    case 'lazy':
      return (def.getter as () => Schema)();
    default:
      return undefined;
  }
}

/** The schema under its wrappers. */
export function unwrapped(schema: Schema): Schema {
  let s = schema;
  for (let inner = wrapped(s); inner; inner = wrapped(s)) s = inner;
  return s;
}

/** The metadata of the schema or of its nearest wrapper that has `key`, outermost first (zod's clones inherit metadata). */
function declared(schema: Schema, key: 'dataClass' | 'publicForm'): unknown {
  for (let s: Schema | undefined = schema; s; s = wrapped(s)) {
    const v = z.globalRegistry.get(s)?.[key];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The class declared on the schema or on one of its wrappers. */
export const dataClassOf = (schema: Schema) => declared(schema, 'dataClass') as DataClass | undefined;

/**
 * The schema declares `value` public: its class (else the `inherited` one of the structure it is in) is public,
 * the value passes the schema, and the public form if it names one.
 */
export function keptPublic(schema: Schema, value: unknown, inherited?: DataClass): boolean {
  if ((dataClassOf(schema) ?? inherited) !== 'public' || !z.safeParse(schema, value).success) return false;
  const form = declared(schema, 'publicForm') as RegExp | undefined;
  return !form || (typeof value === 'string' && form.test(value));
}

/** The parts of a structured schema (object fields, array items, union options), by a path step; none for a leaf (a record is one). */
export function partsOf(schema: Schema): [string, Schema][] {
  const s = unwrapped(schema);
  const def = s._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape as Record<string, Schema>);
    case 'array':
      return [['[]', def.element as Schema]];
    case 'union':
      return (def.options as Schema[]).map((o, i) => [`|${i}`, o]);
    case 'intersection':
      return [
        ['&0', def.left as Schema],
        ['&1', def.right as Schema],
      ];
    default:
      return [];
  }
}

/** Every leaf of a schema with the class it gets: its own, else the nearest structure's that declares one. */
export function classifiedLeaves(schema: Schema, path = '', inherited?: DataClass): { path: string; schema: Schema; dataClass?: DataClass }[] {
  const own = dataClassOf(schema) ?? inherited;
  const parts = partsOf(schema);
  // An object without fields (an empty body) holds nothing to classify.
  if (parts.length === 0) return (unwrapped(schema)._zod.def as { type: string }).type === 'object' ? [] : [{ path, schema, dataClass: own }];
  return parts.flatMap(([step, part]) =>
    classifiedLeaves(part, step.startsWith('|') || step.startsWith('&') ? path : `${path}${path && step !== '[]' ? '.' : ''}${step}`, own),
  );
}
