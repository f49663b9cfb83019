/** The key of a partner's sandbox clock in the data table (docs/architecture.md, "Data model and access patterns", row "sandbox clock"). */
export const clockKeys = {
  clock: (partnerId: string) => ({ pk: `CLOCK#${partnerId}`, sk: 'CLOCK' }),
};

/** The clock's partitions: read by every sandbox request's authentication. */
export const CLOCK_LEADING_KEYS = ['CLOCK#*'];
