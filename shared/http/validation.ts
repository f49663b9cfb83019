import type { z } from 'zod';
import { ApiError } from '../kernel/errors';
import { PAGINATION_FIELD_CODES } from './schemas';

export type Location = 'body' | 'query' | 'path' | 'header';

interface FieldError {
  field: string;
  location: Location;
  message: string;
  expected?: unknown;
}

/** Turns zod issues into `details.errors`, naming each offending field and what was expected. */
export function fieldErrors(issues: z.core.$ZodIssue[], location: Location): FieldError[] {
  return issues.map((issue) => {
    const field = issue.path.map(String).join('.') || (location === 'body' ? '(body)' : '(root)');
    const out: FieldError = { field, location, message: issue.message };
    const i = issue as unknown as Record<string, unknown>;
    if (issue.code === 'invalid_value' && Array.isArray(i.values)) out.expected = i.values;
    else if (issue.code === 'invalid_type') out.expected = i.expected;
    else if ((issue.code === 'too_big' || issue.code === 'too_small') && i.maximum !== undefined) out.expected = `at most ${String(i.maximum)}`;
    else if (issue.code === 'too_small' && i.minimum !== undefined) out.expected = `at least ${String(i.minimum)}`;
    else if (issue.code === 'invalid_format') out.expected = i.format;
    else if (issue.code === 'unrecognized_keys') out.expected = 'no unknown fields';
    return out;
  });
}

const isMissing = (e: FieldError) => e.message.includes('received undefined');

/** `validation.required.field` when the first problem is an absent field, `validation.field.invalid` otherwise. */
export function validationError(errors: FieldError[]): ApiError {
  const first = errors[0];
  if (first && isMissing(first)) {
    return new ApiError('validation.required.field', `Missing required ${first.location} field '${first.field}'.`, { errors });
  }
  const message = first ? `Invalid ${first.location} field '${first.field}': ${first.message}` : 'The request failed validation.';
  return new ApiError('validation.field.invalid', message, { errors });
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, location: Location): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error.issues, location);
    const first = errors[0];
    const pagingCode = location === 'query' && first ? PAGINATION_FIELD_CODES[first.field as keyof typeof PAGINATION_FIELD_CODES] : undefined;
    if (pagingCode) throw new ApiError(pagingCode, `Invalid ${first!.field}: ${first!.message}`, { errors });
    throw validationError(errors);
  }
  return parsed.data;
}
