/**
 * How the console writes an instant: in the reader's own time zone, named ("26 Nov 2026, 15:05 GMT+1"), as a time
 * without its zone is read in the wrong one. (dateStyle and timeStyle cannot name the zone, hence the fields.)
 */
export const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};
