import type { CloudWatchLogsEvent } from 'aws-lambda';
import { instrumented } from '../../shared/kernel/instrument';
import { ingestRequestLogs } from '../../shared/request-logs/ingest';

/** The request log's consumer: the route functions' log groups deliver their request log lines here (a subscription filter each). */
export const handler = instrumented('logs request-log', async (event: CloudWatchLogsEvent) => {
  await ingestRequestLogs(event);
});
