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

/** How far the sandbox clock is ahead of real time, to the minute: "3 days 4 hours ahead of real time". */
export function aheadInWords(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes === 0) return seconds > 0 ? 'less than a minute ahead of real time' : 'in step with real time';
  const parts: [number, string][] = [
    [Math.floor(minutes / 1440), 'day'],
    [Math.floor((minutes % 1440) / 60), 'hour'],
    [minutes % 60, 'minute'],
  ];
  const words = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return `${words.join(' ')} ahead of real time`;
}
