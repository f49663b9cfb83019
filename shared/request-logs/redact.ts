import type * as z from 'zod';
import { type DataClass, dataClassOf, keptPublic, unwrapped } from '../http/data-class';
import type { RouteDef } from '../http/route-def';
import { service } from '../kernel/config';
import { depthExceededAt, MAX_JSON_DEPTH } from '../kernel/json-depth';
import { jsonText, type MarkerKind, sha256Hex, type Withheld } from './marker';

/**
 * What a request log entry keeps of a request: the values of the fields its route's schemas declare public
 * (shared/http/data-class.ts), and only when they have their field's form. Everything else is replaced by a
 * marker (marker.ts): a personal or secret field's value, a field or query parameter the route does not
 * take (its name too), a path segment that is not the route template's literal nor a valid public parameter.
 * Nothing is redacted by name: a variant the service does not know (firstName, passwd) is unknown, so withheld.
 */

type Schema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };

/** Deeper than any schema of the route table: the walk follows the schema, so it stops here whatever a body holds. */
export const MAX_REDACT_DEPTH = 32;

const defOf = (s: Schema) => unwrapped(s)._zod.def as unknown as Def;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const kindOf = (c: DataClass | undefined): MarkerKind => (c === 'personal' || c === 'secret' ? c : 'unknown');

/** The fields an object may have under `schema`: an object's shape, or its options' (the first that names a field wins). */
function shapeOf(schema: Schema): Record<string, Schema> | undefined {
  const def = defOf(schema);
  if (def.type === 'object') return def.shape as Record<string, Schema>;
  if (def.type !== 'union' && def.type !== 'intersection') return undefined;
  const shapes = (def.type === 'union' ? (def.options as Schema[]) : [def.left as Schema, def.right as Schema]).map(shapeOf);
  return shapes.every((s) => s !== undefined) ? Object.assign({}, ...shapes.reverse()) : undefined;
}

const elementOf = (schema: Schema) => {
  const def = defOf(schema);
  return def.type === 'array' ? (def.element as Schema) : undefined;
};

/**
 * A JSON value as the log may keep it under `schema`: objects and arrays are walked field by field along the
 * schema (so the walk is as deep as the schema, never as the value), a public leaf is kept when it has its
 * field's form, anything else becomes a marker. Without a schema nothing is public.
 */
export function redactValue(value: unknown, schema: Schema | undefined, w: Withheld, inherited?: DataClass, depth = 0): unknown {
  const cls = (schema && dataClassOf(schema)) ?? inherited;
  // null says nothing of a person, and tells an absent field from a withheld one.
  if (value === null) return null;
  if (!schema || depth > MAX_REDACT_DEPTH) return w.value('unknown', value);
  const shape = shapeOf(schema);
  if (shape && isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) =>
        Object.hasOwn(shape, k) ? [k, redactValue(v, shape[k], w, cls, depth + 1)] : [w.text('unknown', k), w.value('unknown', v)],
      ),
    );
  }
  const element = elementOf(schema);
  if (element && Array.isArray(value)) return value.map((v) => redactValue(v, element, w, cls, depth + 1));
  // A public field keeps its value only in its own form (a UUID where a UUID goes), whatever a caller puts there.
  if (!shape && !element && keptPublic(schema, value, inherited)) return value;
  return w.value(kindOf(cls), value);
}

function decoded(s: string, plusIsSpace = false): string {
  try {
    return decodeURIComponent(plusIsSpace ? s.replace(/\+/g, ' ') : s);
  } catch {
    return s;
  }
}

/** The path as received, each segment kept only if it is the template's literal there, or a public parameter of valid form. */
export function redactPath(path: string, def: RouteDef, w: Withheld): string {
  const template = def.path.split('/');
  const segments = path.split('/');
  const params = (def.request?.params?.shape ?? {}) as Record<string, Schema>;
  const aligned = segments.length === template.length;
  return segments
    .map((segment, i) => {
      const t = aligned ? template[i]! : undefined;
      const param = t && /^\{\w+\}$/.test(t) ? params[t.slice(1, -1)] : undefined;
      if (param) {
        const value = decoded(segment);
        return keptPublic(param, value) ? segment : w.text(kindOf(dataClassOf(param)), value);
      }
      const literal = t !== undefined ? segment === t : template.includes(segment) && !segment.startsWith('{');
      return literal ? segment : w.text('unknown', decoded(segment));
    })
    .join('/');
}

/** A raw query string with each value kept only if its parameter is declared public and the value has its form; unknown names are withheld too. */
export function redactQuery(query: string, schema: Schema | undefined, w: Withheld): string {
  const shape = schema ? (shapeOf(schema) ?? {}) : {};
  return query
    .split('&')
    .map((pair) => {
      if (pair === '') return pair;
      const eq = pair.indexOf('=');
      const [rawName, rawValue] = eq === -1 ? [pair, undefined] : [pair.slice(0, eq), pair.slice(eq + 1)];
      const name = decoded(rawName, true);
      const field = Object.hasOwn(shape, name) ? shape[name] : undefined;
      if (!field) return rawValue === undefined ? w.text('unknown', name) : `${w.text('unknown', name)}=${w.text('unknown', decoded(rawValue, true))}`;
      if (rawValue === undefined) return pair;
      const value = decoded(rawValue, true);
      return keptPublic(field, value) ? pair : `${rawName}=${w.text(kindOf(dataClassOf(field)), value)}`;
    })
    .join('&');
}

/** How much of each body an entry keeps, in characters of its redacted JSON: the log line stays far below CloudWatch's 256 KB event. */
export const MAX_BODY_CHARS = 8192;

/** What `content` is: the body parsed, redacted, and written again as compact JSON, never the bytes received. */
export const CONTENT_FORM = 'reserialized_redacted';

export interface BodyExcerpt {
  /** The redacted body as compact JSON text, cut at MAX_BODY_CHARS. */
  content: string | null;
  content_form: typeof CONTENT_FORM | null;
  /** The size of the body as received, in bytes. */
  bytes: number;
  /** SHA-256 of the body as received (hex): what a signature covers. */
  sha256: string;
  truncated: boolean;
  /** Why nothing of the body is kept. */
  omitted?: string;
}

/** The excerpt of a body, its content redacted by `redact` from the parsed JSON; null for an empty body. */
export function bodyExcerpt(raw: string | Uint8Array, redact: (parsed: unknown) => unknown): BodyExcerpt | null {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  if (bytes.byteLength === 0) return null;
  const received = { bytes: bytes.byteLength, sha256: sha256Hex(bytes), truncated: false };
  const omitted = (why: string): BodyExcerpt => ({ content: null, content_form: null, ...received, omitted: why });
  const max = service().MAX_BODY_BYTES;
  if (bytes.byteLength > max) return omitted(`larger than the ${max} bytes the service reads: not read`);
  // Refused as request.body.too_deep (issue 40): its entry is written, the body is neither parsed nor walked.
  if (depthExceededAt(bytes) !== -1) return omitted(`nested more than ${MAX_JSON_DEPTH} levels deep: a body this deep is not kept`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return omitted('not JSON: a body that cannot be redacted field by field is not kept');
  }
  const text = jsonText(redact(parsed));
  return { content: text.slice(0, MAX_BODY_CHARS), content_form: CONTENT_FORM, ...received, truncated: text.length > MAX_BODY_CHARS };
}
