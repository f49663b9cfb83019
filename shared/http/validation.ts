import type { z } from 'zod';
import { ApiError } from '../kernel/errors';
import { PAGINATION_FIELD_CODES } from './schemas';

export type Location = 'body' | 'query' | 'path' | 'header';

interface FieldError {
  field: string;
  location: Location;
  message: string;
  /** In words, always a string (a typed client reads one type); a closed set's values are also in `allowed`. */
  expected?: string;
  allowed?: string[];
}

type RawIssue = z.core.$ZodRawIssue;

const TYPE_PHRASES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
  null: 'null',
};

const FORMAT_PHRASES: Record<string, string> = {
  email: 'an e-mail address',
  uuid: 'a UUID',
  guid: 'a UUID',
  url: 'a URL',
  datetime: 'a date and time in ISO 8601, e.g. 2026-11-21T09:27:45Z',
  date: 'a date YYYY-MM-DD',
  time: 'a time HH:MM',
  base64: 'base64 text',
  base64url: 'base64url text',
};

const plural = (n: unknown, one: string, many: string) => `${String(n)} ${Number(n) === 1 ? one : many}`;

/** What a value must be, in words: `expected` of `details.errors` and the end of the sentence. */
function expectedPhrase(issue: RawIssue | z.core.$ZodIssue): string | undefined {
  const i = issue as unknown as Record<string, unknown>;
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_PHRASES[String(i.expected)] ?? `of type ${String(i.expected)}`;
    case 'invalid_format': {
      if (i.format === 'regex') return `text matching ${String(i.pattern)}`;
      if (i.format === 'starts_with') return `text starting with "${String(i.prefix)}"`;
      if (i.format === 'ends_with') return `text ending with "${String(i.suffix)}"`;
      if (i.format === 'includes') return `text containing "${String(i.includes)}"`;
      return FORMAT_PHRASES[String(i.format)] ?? `in the ${String(i.format)} format`;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = small ? i.minimum : i.maximum;
      const word = small ? (i.inclusive === false ? 'more than' : 'at least') : i.inclusive === false ? 'less than' : 'at most';
      if (i.origin === 'string') return Number(bound) === 1 && small ? 'not empty' : `${word} ${plural(bound, 'character', 'characters')} long`;
      if (i.origin === 'array' || i.origin === 'set') return `${word} ${plural(bound, 'item', 'items')}`;
      return `${word} ${String(bound)}`;
    }
    case 'invalid_value': {
      const values = (i.values as unknown[]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      return values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
    }
    case 'not_multiple_of':
      return `a multiple of ${String(i.divisor)}`;
    default:
      return undefined;
  }
}

/**
 * The sentence one problem reads as, where the schema did not word it itself:
 * `limit must be at least 1.`, `The body has a field this route does not accept: "x".`
 */
function sentence(issue: RawIssue, location: Location): string {
  const path = (issue.path ?? []).map(String);
  const name = path.join('.');
  const i = issue as unknown as Record<string, unknown>;
  const owner = path.length ? name : `The ${location}`;
  if (issue.code === 'unrecognized_keys') {
    const keys = (i.keys as string[]).map((k) => JSON.stringify(k)).join(', ');
    return `${owner} has ${(i.keys as string[]).length === 1 ? 'a field' : 'fields'} this route does not accept: ${keys}.`;
  }
  if (issue.code === 'invalid_type' && i.input === undefined) return path.length ? `${name} is required.` : `The ${location} is required.`;
  if (!path.length && issue.code === 'invalid_type')
    return `The ${location} must be ${location === 'body' && i.expected === 'object' ? 'a JSON object' : expectedPhrase(issue)}.`;
  const phrase = expectedPhrase(issue);
  if (phrase === 'not empty') return `${owner} must not be empty.`;
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    if (i.origin === 'array' || i.origin === 'set') return `${owner} must have ${phrase}.`;
    if (i.origin === 'string') return `${owner} must be ${phrase}.`;
  }
  if (phrase) return `${owner} must be ${phrase}.`;
  if (issue.code === 'invalid_union') return `${owner} matches none of the accepted forms.`;
  if (issue.code === 'invalid_key') return `${owner} has a key that is not accepted.`;
  if (issue.code === 'invalid_element') return `${owner} has a value that is not accepted.`;
  return `${owner} is not valid.`;
}

/** A schema's own wording ("a calendar date YYYY-MM-DD", "each file at most once") made into a sentence about its field. */
function ownSentence(message: string, field: string, atRoot: boolean): string {
  if (/[.!?]$/.test(message)) return message;
  if (atRoot) return `${message[0]!.toUpperCase()}${message.slice(1)}.`;
  if (/^(a|an|the|one of|at least|at most) /i.test(message)) return `${field} must be ${message}.`;
  return `${field}: ${message}.`;
}

interface Worded {
  /** Sentences this parse worded itself, with whether each says the field is absent. */
  sentences: Map<string, boolean>;
}

/** Turns zod issues into `details.errors`, naming each offending field and what was expected. */
function fieldErrors(issues: z.core.$ZodIssue[], location: Location, worded: Worded): (FieldError & { missing: boolean })[] {
  return issues.flatMap((issue): (FieldError & { missing: boolean })[] => {
    const path = issue.path.map(String);
    const i = issue as unknown as Record<string, unknown>;
    const ours = worded.sentences.has(issue.message);
    if (issue.code === 'unrecognized_keys') {
      // One entry per unknown field, named.
      return (i.keys as string[]).map((key) => ({
        field: [...path, key].join('.'),
        location,
        message: ours ? issue.message : ownSentence(issue.message, path.join('.'), !path.length),
        expected: 'no unknown fields',
        missing: false,
      }));
    }
    const field = path.join('.') || (location === 'body' ? '(body)' : '(root)');
    const missing = ours ? worded.sentences.get(issue.message) === true : issue.code === 'custom' && (i.params as { missing?: boolean })?.missing === true;
    // A schema's own wording of a format ("a month YYYY-MM", "HH:MM") says more than its pattern.
    const format = !ours && issue.code === 'invalid_format';
    const allowed = issue.code === 'invalid_value' ? issue.values.map(String) : undefined;
    const expected = format || (!ours && /^(a|an) /i.test(issue.message)) ? issue.message : allowed ? `one of ${allowed.join(', ')}` : expectedPhrase(issue);
    const message = ours
      ? issue.message
      : format && !/^(a|an) /i.test(issue.message)
        ? `${field} must be in the form ${issue.message}.`
        : ownSentence(issue.message, field, !path.length);
    return [
      {
        field,
        location,
        message,
        ...(expected !== undefined ? { expected } : {}),
        ...(allowed ? { allowed } : {}),
        missing,
      },
    ];
  });
}

/** `validation.required.field` when the first problem is an absent field, `validation.field.invalid` otherwise. */
function validationError(errors: (FieldError & { missing: boolean })[]): ApiError {
  const first = errors[0];
  const details = { errors: errors.map(({ missing: _, ...e }) => e) };
  if (first?.missing) {
    return new ApiError('validation.required.field', `Missing required ${first.location} field '${first.field}'.`, details);
  }
  return new ApiError('validation.field.invalid', first ? first.message : 'The request failed validation.', details);
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, location: Location): z.infer<S> {
  const worded: Worded = { sentences: new Map() };
  const parsed = schema.safeParse(value, {
    error: (issue) => {
      const s = sentence(issue, location);
      worded.sentences.set(s, issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined);
      return s;
    },
  });
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error.issues, location, worded);
    const first = errors[0];
    const pagingCode = location === 'query' && first ? PAGINATION_FIELD_CODES[first.field as keyof typeof PAGINATION_FIELD_CODES] : undefined;
    if (pagingCode) throw new ApiError(pagingCode, first!.message, { errors: errors.map(({ missing: _, ...e }) => e) });
    throw validationError(errors);
  }
  return parsed.data;
}
