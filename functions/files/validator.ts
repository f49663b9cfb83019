import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { checkUploads } from '../../shared/files/validate';
import { eachRecord } from '../../shared/kernel/batch';
import { instrumented } from '../../shared/kernel/instrument';

/** Upload queue consumer: S3 ObjectCreated notifications of pending/ photos; each object is checked, READY or REJECTED. */
export const handler = instrumented(
  'queue uploads',
  (event: SQSEvent): Promise<SQSBatchResponse> => eachRecord(event.Records, 'upload check', (m) => checkUploads(m)),
);
