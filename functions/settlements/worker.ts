import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/logger';
import { type SettlementMessage, settleFromMessage } from '../../shared/settlements/run';

/** Settlement queue consumer: one message per partner and environment; a failure retries that tenant only (partial batch failures). */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.allSettled(event.Records.map((r) => settleFromMessage(JSON.parse(r.body) as SettlementMessage)));
  const batchItemFailures = results.flatMap((res, i) => {
    if (res.status === 'fulfilled') return [];
    logger.error('settlement run failed', { message_id: event.Records[i]!.messageId, error: (res.reason as Error).message });
    return [{ itemIdentifier: event.Records[i]!.messageId }];
  });
  return { batchItemFailures };
};
