import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord } from '../../shared/kernel/batch';
import { instrumented } from '../../shared/kernel/instrument';
import { type SettlementMessage, settleFromMessage } from '../../shared/settlements/run';

/** Settlement queue consumer: one message per partner and environment; a failure retries that tenant only. */
export const handler = instrumented(
  'queue settlements',
  (event: SQSEvent): Promise<SQSBatchResponse> => eachRecord(event.Records, 'settlement run', (m) => settleFromMessage(m as SettlementMessage)),
);
