import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Env } from '../kernel/tenant';
import { settlementSettings } from './config';

/** One message per partner and environment: a tenant's failure is retried on its own, the others go on. */
export interface SettlementMessage {
  partner_id: string;
  env: Env;
  /** Close every open settlement up to this period (YYYY-MM). */
  through_period: string;
}

let sqs: SQSClient | undefined;

export async function enqueueSettlementRuns(messages: SettlementMessage[]): Promise<void> {
  const url = settlementSettings().SETTLEMENT_QUEUE_URL;
  if (!url) throw new Error('SETTLEMENT_QUEUE_URL is not configured');
  sqs ??= new SQSClient({});
  for (let i = 0; i < messages.length; i += 10) {
    const r = await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: url, Entries: messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })) }),
    );
    if (r.Failed?.length) throw new Error(`could not enqueue ${r.Failed.length} settlement message(s)`);
  }
}
