import { describe, expect, it } from 'vitest';
import { AdventureListQuery } from '../../shared/catalog/schemas';
import { parseWith } from '../../shared/http/validation';
import { ApiError } from '../../shared/kernel/errors';
import { CreateQuoteBody } from '../../shared/quotes/schemas';
import { kindInWords } from '../../shared/reviews/rules';
import { SettlementListQuery } from '../../shared/settlements/schemas';
import { UpdateWebhookBody } from '../../shared/webhooks/schemas';

/** The error a value gets from a route schema, as the API answers it. */
function refusal(schema: Parameters<typeof parseWith>[0], value: unknown, location: 'body' | 'query') {
  try {
    parseWith(schema, value, location);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return {
      code: e.code,
      message: e.message,
      details: e.details as { errors: { field: string; location: string; message: string; expected?: unknown; allowed?: string[] }[] },
    };
  }
  throw new Error('accepted');
}

const validatorWords = /Invalid input|Too small|Too big|Unrecognized key|expected (number|string)|received undefined|\(body\)'|>=|<=|"regex"/;

describe('validation messages read as sentences, codes and shapes unchanged', () => {
  it('an unknown body field is named in a sentence, and in details.errors[].field', () => {
    const r = refusal(UpdateWebhookBody, { rotate_secret: true, status: 'ACTIVE' }, 'body');
    expect(r.code).toBe('validation.field.invalid');
    expect(r.message).toBe('The body has a field this route does not accept: "rotate_secret".');
    expect(r.details.errors).toEqual([
      { field: 'rotate_secret', location: 'body', message: 'The body has a field this route does not accept: "rotate_secret".', expected: 'no unknown fields' },
    ]);
  });

  it('limit below 1 says so plainly, with the pagination code', () => {
    const r = refusal(AdventureListQuery, { limit: '0' }, 'query');
    expect([r.code, r.message]).toEqual(['pagination.limit.invalid', 'limit must be at least 1.']);
    expect(r.details.errors[0]).toEqual({ field: 'limit', location: 'query', message: 'limit must be at least 1.', expected: 'at least 1' });
  });

  it('a format says what it expects, never "regex"', () => {
    const r = refusal(CreateQuoteBody, { rate_pack_id: 'x', start_date: '2026-12-01', start_time: '25:00', travelers: [{ age: 30 }] }, 'body');
    expect(r.message).toBe('rate_pack_id must be a UUID.');
    expect(r.details.errors).toEqual([
      { field: 'rate_pack_id', location: 'body', message: 'rate_pack_id must be a UUID.', expected: 'a UUID' },
      { field: 'start_time', location: 'body', message: 'start_time must be in the form HH:MM.', expected: 'HH:MM' },
    ]);
    const p = refusal(SettlementListQuery, { period_from: '2026-1' }, 'query');
    expect(p.details.errors[0]).toEqual({
      field: 'period_from',
      location: 'query',
      message: 'period_from must be a month YYYY-MM.',
      expected: 'a month YYYY-MM',
    });
  });

  it('sort=distance without lat is a missing field, in words', () => {
    const r = refusal(AdventureListQuery, { sort: 'distance', lng: '-7.99' }, 'query');
    expect([r.code, r.message]).toEqual(['validation.required.field', "Missing required query field 'lat'."]);
    expect(r.details.errors.map((e) => e.message)).toEqual(['sort=distance needs both lat and lng.', 'lat and lng go together: give both or neither.']);
  });

  it('absent, mistyped, too long, too many, not in the list', () => {
    const missing = refusal(CreateQuoteBody, { start_date: '2026-12-01', travelers: [{ age: 30 }] }, 'body');
    expect([missing.code, missing.message, missing.details.errors[0]!.message]).toEqual([
      'validation.required.field',
      "Missing required body field 'rate_pack_id'.",
      'rate_pack_id is required.',
    ]);
    expect(refusal(UpdateWebhookBody, [], 'body').message).toBe('The body must be a JSON object.');
    expect(refusal(UpdateWebhookBody, { description: 'x'.repeat(201) }, 'body').message).toBe('description must be at most 200 characters long.');
    expect(refusal(UpdateWebhookBody, { event_types: [] }, 'body').message).toBe('event_types must have at least 1 item.');
    const status = refusal(UpdateWebhookBody, { status: 'PAUSED' }, 'body');
    // `expected` is always words (a typed client reads one type); the closed set's values are in `allowed`.
    expect([status.message, status.details.errors[0]!.expected, status.details.errors[0]!.allowed]).toEqual([
      'status must be one of ACTIVE, DISABLED.',
      'one of ACTIVE, DISABLED',
      ['ACTIVE', 'DISABLED'],
    ]);
    expect(refusal(UpdateWebhookBody, {}, 'body').message).toBe('Give at least one of url, event_types, status, description.');
    expect(refusal(CreateQuoteBody, { rate_pack_id: 5 }, 'body').message).toBe('rate_pack_id must be a string.');
  });

  it('no message or detail carries the validator’s own wording', () => {
    const samples = [
      refusal(UpdateWebhookBody, { rotate_secret: true }, 'body'),
      refusal(AdventureListQuery, { limit: '0', sort: 'distance', lat: '100' }, 'query'),
      refusal(CreateQuoteBody, { rate_pack_id: 'x', start_date: 'soon', start_time: '9', travelers: [{ age: -1 }, { birth_date: 1 }] }, 'body'),
      refusal(SettlementListQuery, { period_from: 'x', period_to: 'y' }, 'query'),
    ];
    for (const s of samples) expect(JSON.stringify(s)).not.toMatch(validatorWords);
  });

  it('a reviewable kind takes its article: an experience, a trip', () => {
    expect([kindInWords('EXPERIENCE'), kindInWords('TRIP')]).toEqual(['an experience', 'a trip']);
  });
});
