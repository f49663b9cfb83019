import { createHash } from 'node:crypto';

/** What a marker says a value was: its field's class, or unknown (a field, parameter or form the route does not declare public). */
export type MarkerKind = 'personal' | 'secret' | 'unknown';

export const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * How an entry stores an Idempotency-Key: its full SHA-256, so that the idempotency_key filter (which hashes
 * its input) finds a write and its retries, and the start of it is the key's marker in the signature diagnostics.
 */
export const idempotencyKeyHash = (key: string) => `sha256:${sha256Hex(key)}`;
export const IDEMPOTENCY_KEY_HASH = /^sha256:[0-9a-f]{64}$/;

/** How many hex digits of its SHA-256 a marker shows: enough to tell values apart, too few to look one up. */
export const MARKER_HASH_DIGITS = 8;

/** `[personal 10 bytes sha256:3bc51062]`: the value's UTF-8 length and the start of its SHA-256, never the value. */
export const MARKER_PATTERN = /\[(?:personal|secret|unknown) \d+ bytes sha256:[0-9a-f]{8}\]/;

export function marker(kind: MarkerKind, text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return `[${kind} ${bytes.byteLength} bytes sha256:${sha256Hex(bytes).slice(0, MARKER_HASH_DIGITS)}]`;
}

class Text {
  constructor(readonly s: string) {}
}
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT, COMMA] = ['[', ']', '{', '}', ','].map((s) => new Text(s));

/**
 * A JSON value as JSON.stringify writes it, without recursion: a value parsed from a partner's body may be
 * nested deeper than the call stack allows (JSON.stringify throws a RangeError from a few thousand levels).
 */
export function jsonText(value: unknown): string {
  const out: string[] = [];
  // A Text on the stack is written as it is: a bracket, a separator, or a key with its colon.
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof Text) out.push(v.s);
    else if (Array.isArray(v)) {
      stack.push(CLOSE_ARRAY);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i] ?? null, ...(i > 0 ? [COMMA] : []));
      stack.push(OPEN_ARRAY);
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      stack.push(CLOSE_OBJECT);
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1], new Text(`${JSON.stringify(entries[i]![0])}:`), ...(i > 0 ? [COMMA] : []));
      stack.push(OPEN_OBJECT);
    } else out.push(JSON.stringify(v) ?? 'null');
  }
  return out.join('');
}

/** Shorter withheld values are masked in the service's sentences only as whole words: "Al" must not eat "Also". */
const WHOLE_WORD_BELOW = 8;
/** The most values an entry remembers for masking echoes: its sentences quote a handful, and this bounds the work whatever a body holds. */
export const MAX_ECHOES = 500;
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The values a request log entry withholds, each replaced by its marker. A sentence the service wrote
 * (an error's message, a field name in its details) may quote one: `echoesMasked` replaces it there too.
 */
export class Withheld {
  private readonly values = new Map<string, string>();
  private echoes: { pattern: RegExp; markers: Map<string, string> } | undefined;

  /** The marker of a text, remembered so that the service's sentences never quote it. */
  text(kind: MarkerKind, text: string): string {
    const m = marker(kind, text);
    if (text.trim().length >= 3 && this.values.size < MAX_ECHOES && !this.values.has(text)) {
      this.values.set(text, m);
      this.echoes = undefined;
    }
    return m;
  }

  /** The marker of any JSON value: a string's own bytes, anything else its JSON text. */
  value(kind: MarkerKind, value: unknown): string {
    return typeof value === 'string' ? this.text(kind, value) : this.text(kind, jsonText(value));
  }

  /** `s` with every withheld value it quotes (as is, JSON-escaped, in any case) replaced by that value's marker. */
  echoesMasked(s: string): string {
    if (this.values.size === 0) return s;
    this.echoes ??= this.compile();
    return s.replace(this.echoes.pattern, (found) => this.echoes!.markers.get(found.toLowerCase()) ?? marker('unknown', found));
  }

  /** One pattern of every form, the longest first (so a value is masked whole before a shorter one inside it). */
  private compile() {
    const markers = new Map<string, string>();
    for (const [value, m] of this.values) for (const form of [value, JSON.stringify(value).slice(1, -1)]) markers.set(form.toLowerCase(), m);
    const forms = [...markers.keys()].sort((a, b) => b.length - a.length);
    const long = forms.filter((f) => f.length >= WHOLE_WORD_BELOW).map(escaped);
    const short = forms.filter((f) => f.length < WHOLE_WORD_BELOW).map(escaped);
    const words = short.length ? [`(?<![\\p{L}\\p{N}])(?:${short.join('|')})(?![\\p{L}\\p{N}])`] : [];
    return { pattern: new RegExp([...long, ...words].join('|'), 'giu'), markers };
  }
}

const SCRUBS: [RegExp, string][] = [
  [/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted token]'],
  // Anywhere, even glued to a word (abc_sk_test_...): an API key has no reason to stand in a kept text.
  [/sk_(?:live|test)_[A-Za-z0-9_-]+/g, '[redacted api key]'],
  [/whsec_[A-Za-z0-9+/=_-]+/g, '[redacted secret]'],
  // Bounded as RFC 5321 bounds an address (64 and 255): linear in the string, whatever a text holds.
  [/[^\s@"'<>(),;:]{1,64}@[^\s@"'<>(),;:]{1,255}\.[A-Za-z]{2,63}/g, '[redacted email]'],
];

/**
 * A kept free text (the User-Agent, the service's own sentences) cleared of what looks like a credential or an
 * e-mail address: a second line behind the classes, for texts no schema describes field by field.
 */
export function scrub(s: string): string {
  return SCRUBS.reduce((out, [re, by]) => out.replace(re, by), s);
}
