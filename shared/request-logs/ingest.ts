import { gunzipSync } from 'node:zlib';
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../kernel/logger';
import { REQUEST_LOG_MARKER, type RequestLogLine } from './entry';
import { RequestLogBody, RequestLogEntry } from './schemas';
import { requestLogStore } from './store';

// A body line of a function not yet redeployed (a deployment's first minutes) has no hash: taken, and shown with null.
const LineBody = RequestLogBody.partial({ sha256: true, content_form: true }).nullable();
const Line = RequestLogEntry.extend({
  [REQUEST_LOG_MARKER]: z.literal(1),
  partner_id: z.string().min(1),
  request_body: LineBody,
  response_body: LineBody,
});

/** The log events of a CloudWatch Logs subscription delivery: `awslogs.data` is base64 of gzip of JSON. */
export function decodeLogs(event: CloudWatchLogsEvent): CloudWatchLogsDecodedData {
  return JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8')) as CloudWatchLogsDecodedData;
}

/** The request log lines among a delivery's events; anything else (a line the filter matched by mistake) is skipped with a word. */
export function requestLogLines(data: CloudWatchLogsDecodedData): RequestLogLine[] {
  const out: RequestLogLine[] = [];
  for (const e of data.logEvents) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(e.message);
    } catch {
      parsed = undefined;
    }
    const line = Line.safeParse(parsed);
    if (line.success) out.push(line.data as RequestLogLine);
    else logger.warn('not a request log line', { log_group: data.logGroup, log_event: e.id });
  }
  return out;
}

/** Saves a delivery's entries; a failure throws, and Lambda retries the asynchronous invocation. */
export async function ingestRequestLogs(event: CloudWatchLogsEvent): Promise<number> {
  const data = decodeLogs(event);
  // CloudWatch Logs checks a new destination with a CONTROL_MESSAGE: nothing to save.
  if (data.messageType !== 'DATA_MESSAGE') return 0;
  const lines = requestLogLines(data);
  await requestLogStore.save(lines);
  logger.info('request log entries saved', { entries: lines.length, log_group: data.logGroup });
  return lines.length;
}
