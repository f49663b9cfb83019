/** The key of a partner's sandbox clock in the data table (docs/architecture.md, "Data model and access patterns", row "sandbox clock"). */
export const clockKeys = {
  clock: (partnerId: string) => ({ pk: `CLOCK#${partnerId}`, sk: 'CLOCK' }),
};

/** The clocks' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): read by every sandbox request's authentication. */
export const clockPartitions = {
  clock: 'CLOCK#*',
};
