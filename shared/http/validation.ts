import type { z } from 'zod';
import { ApiError } from '../errors';

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

export function validationError(errors: FieldError[]): ApiError {
  const first = errors[0];
  const message = first
    ? `Invalid ${first.location} field '${first.field}': ${first.message}`
    : 'The request failed validation.';
  return new ApiError('validation.request.invalid', message, { errors });
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, location: Location): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(fieldErrors(parsed.error.issues, location));
  return parsed.data;
}
