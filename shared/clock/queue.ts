import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { loadConfig } from '../kernel/config';

const clockConfig = z.object({ CLOCK_QUEUE_URL: z.string().optional() });

/** One message per advance: its worker plays it to the end (a failure is received again and resumes it). */
export interface ClockMessage {
  partner_id: string;
  advance_id: string;
}

let sqs: SQSClient | undefined;

export async function enqueueAdvance(m: ClockMessage): Promise<void> {
  const url = loadConfig(clockConfig).CLOCK_QUEUE_URL;
  if (!url) throw new Error('CLOCK_QUEUE_URL is not configured');
  sqs ??= new SQSClient({});
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(m) }));
}
