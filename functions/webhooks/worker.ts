import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { instrumented } from '../../shared/kernel/instrument';
import { logger } from '../../shared/kernel/logger';
import { runAttempt } from '../../shared/webhooks/attempt';
import { fanOut } from '../../shared/webhooks/fanout';
import type { Message } from '../../shared/webhooks/model';

/** Webhook queue consumer: fan-outs and attempts; failures are reported per message (partial batch failures). */
export const handler = instrumented('queue webhooks', async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.allSettled(
    event.Records.map(async (r) => {
      const m = JSON.parse(r.body) as Message;
      if (m.kind === 'fanout') await fanOut({ pk: m.pk, sk: m.sk });
      else if (m.kind === 'attempt') await runAttempt(m.delivery_id, m.attempt);
    }),
  );
  const batchItemFailures = results.flatMap((res, i) => {
    if (res.status === 'fulfilled') return [];
    logger.error('webhook message failed', { message_id: event.Records[i]!.messageId, error: (res.reason as Error).message });
    return [{ itemIdentifier: event.Records[i]!.messageId }];
  });
  return { batchItemFailures };
});
