import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord } from '../../shared/kernel/batch';
import { instrumented } from '../../shared/kernel/instrument';
import { retryMail } from '../../shared/mail/deliver';

/** Mail queue consumer: each e-mail SES refused at first is sent again; one refused again waits for its next receive. */
export const handler = instrumented('queue mail', (event: SQSEvent): Promise<SQSBatchResponse> => eachRecord(event.Records, 'mail retry', (m) => retryMail(m)));
