import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord, parsedBodies } from '../../shared/kernel/batch';
import { instrumented } from '../../shared/kernel/instrument';
import { AttemptBatch, runAttempt } from '../../shared/webhooks/attempt';
import { fanOutAll, fanOutResult } from '../../shared/webhooks/fanout';
import type { Message } from '../../shared/webhooks/model';

/**
 * Webhook queue consumer: the batch's fan-outs run together (one read, one
 * Query per partner, one transaction); its attempts are claimed and recorded
 * each on their own, sharing one read of each endpoint. Every message is
 * retried alone on failure.
 */
export const handler = instrumented('queue webhooks', async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const messages = parsedBodies<Message>(event.Records);
  const fanOuts = fanOutAll(messages.flatMap((m) => (m?.kind === 'fanout' ? [m] : [])));
  const batch = new AttemptBatch();
  const result = await eachRecord(event.Records, 'webhook message', async (body) => {
    const m = body as Message;
    if (m.kind === 'fanout') fanOutResult(await fanOuts, m);
    else if (m.kind === 'attempt') await runAttempt(m.delivery_id, m.attempt, new Date(), batch);
  });
  await batch.flush();
  return result;
});
