import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { playAdvance } from '../../shared/clock/play';
import type { ClockMessage } from '../../shared/clock/queue';
import { eachRecord } from '../../shared/kernel/batch';
import { instrumented } from '../../shared/kernel/instrument';

/** Clock queue consumer: one advance per message, played to its end; a failure is received again and resumes it. */
export const handler = instrumented(
  'queue clock',
  (event: SQSEvent): Promise<SQSBatchResponse> => eachRecord(event.Records, 'clock advance', (m) => playAdvance(m as ClockMessage)),
);
