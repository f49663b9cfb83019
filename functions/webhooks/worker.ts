import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord } from '../../shared/kernel/batch';
import { instrumented } from '../../shared/kernel/instrument';
import { runAttempt } from '../../shared/webhooks/attempt';
import { fanOut } from '../../shared/webhooks/fanout';
import type { Message } from '../../shared/webhooks/model';

/** Webhook queue consumer: fan-outs and attempts, each retried alone on failure. */
export const handler = instrumented(
  'queue webhooks',
  (event: SQSEvent): Promise<SQSBatchResponse> =>
    eachRecord(event.Records, 'webhook message', async (body) => {
      const m = body as Message;
      if (m.kind === 'fanout') await fanOut({ pk: m.pk, sk: m.sk });
      else if (m.kind === 'attempt') await runAttempt(m.delivery_id, m.attempt);
    }),
);
