const ADVANCING = 'CLOCKS#ADVANCING';

/** The key of a partner's sandbox clock in the data table (docs/architecture.md, "Data model and access patterns", row "sandbox clock"). */
export const clockKeys = {
  clock: (partnerId: string) => ({ pk: `CLOCK#${partnerId}`, sk: 'CLOCK' }),
  /** The clocks an advance holds, by the real time of its last step (sparse: a ready clock leaves it), for the sweeper. */
  advancingPartition: ADVANCING,
  advancing: (heartbeatAt: string, partnerId: string) => ({ gsi1pk: ADVANCING, gsi1sk: `${heartbeatAt}#${partnerId}` }),
};

/** The clocks' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): read by every sandbox request's authentication. */
export const clockPartitions = {
  clock: 'CLOCK#*',
};
