import * as z from 'zod';
import { MAX_BOOKING_WINDOW_DAYS } from '../catalog/slots';
import { clockLeadMs } from '../kernel/clock';
import { addDays, isCalendarDate, localDate } from '../kernel/time';
import { personal, pub } from './data-class';
import { CalendarDate } from './schemas';

/**
 * The bounds of what a partner may send, shared by every route: dates within
 * a sane range, and text that cannot break the lines of a document.
 */

/** No date, month or instant a route takes lies before this day (birth dates excepted). */
export const EARLIEST_DATE = '2000-01-01';
export const EARLIEST_BIRTH_DATE = '1900-01-01';

/** The booking horizon: the last date any route takes, today (Morocco time) plus the longest booking window. */
export const horizonDate = (now = new Date(Date.now() + clockLeadMs())) => addDays(localDate(now), MAX_BOOKING_WINDOW_DAYS);

const HORIZON_WORDS = `the booking horizon: today plus ${MAX_BOOKING_WINDOW_DAYS} days, Morocco time`;

const within = (value: string, low: string, high: string) => value >= low && value <= high;

/** A calendar date from 2000-01-01 to the booking horizon: travel dates, and the date filters of lists. */
export const BoundedDate = CalendarDate.superRefine((d, ctx) => {
  const high = horizonDate();
  if (isCalendarDate(d) && !within(d, EARLIEST_DATE, high))
    ctx.addIssue({ code: 'custom', message: `a date from ${EARLIEST_DATE} to ${high} (${HORIZON_WORDS})` });
});

/** A birth date from 1900-01-01 to today (Morocco time): personal, unlike the dates it is made from. */
export const BirthDate = personal(
  CalendarDate.superRefine((d, ctx) => {
    const today = localDate(new Date());
    if (isCalendarDate(d) && !within(d, EARLIEST_BIRTH_DATE, today))
      ctx.addIssue({ code: 'custom', message: `a birth date from ${EARLIEST_BIRTH_DATE} to today (${today})` });
  }),
);

/** `schema`, a month YYYY-MM, bounded from 2000-01 to the month of the booking horizon. */
export const boundedMonth = <S extends z.ZodString>(schema: S): S =>
  schema.superRefine((m, ctx) => {
    const high = horizonDate().slice(0, 7);
    if (/^\d{4}-\d{2}$/.test(m) && !within(m, EARLIEST_DATE.slice(0, 7), high))
      ctx.addIssue({ code: 'custom', message: `a month from ${EARLIEST_DATE.slice(0, 7)} to ${high} (${HORIZON_WORDS})` });
  }) as S;

/** An ISO 8601 instant from 2000-01-01T00:00:00Z to the end of the booking horizon's day (UTC). */
export const BoundedInstant = pub(
  z.iso.datetime().superRefine((s, ctx) => {
    const at = Date.parse(s);
    const [low, high] = [`${EARLIEST_DATE}T00:00:00.000Z`, `${horizonDate()}T23:59:59.999Z`];
    if (!Number.isNaN(at) && (at < Date.parse(low) || at > Date.parse(high)))
      ctx.addIssue({ code: 'custom', message: `a date and time from ${low.replace('.000', '')} to ${high.replace('.999', '')} (${HORIZON_WORDS})` });
  }),
);

/** C0 controls (line feed, carriage return and tab among them), DEL and C1 controls. */
export const hasControlCharacter = (s: string) => {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
};

/** Bidirectional formatting controls (ALM, LRM, RLM, embeddings, overrides, isolates): they can make a text read as another. */
export const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

export const SINGLE_LINE =
  'a single line of text, without control characters such as line breaks or tabs, nor bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)';

/**
 * Text a partner sends that can reach a document (the statement CSV, the
 * invoice PDF, an e-mail) or a person's screen: one line, no control
 * character, so that it can never start a row or a header of its own there;
 * no bidirectional control, so that what a reviewer reads is what was sent
 * (U+202E shows `PTB-1234` reversed, or a reference as another).
 */
export const singleLine = <S extends z.ZodString>(schema: S): S => schema.refine((s) => !hasControlCharacter(s) && !BIDI_CONTROL.test(s), SINGLE_LINE) as S;

/** A label people tell things apart by (a key's name): the same rule. */
export const label = singleLine;
