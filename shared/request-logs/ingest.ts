import { gunzipSync } from 'node:zlib';
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';
import * as z from 'zod';
import { faultInjectionOn, REQUEST_LOG_FAULT_FIELD } from '../http/fault';
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

/** A log event's message as JSON, or undefined when it is not. */
function json(message: string): unknown {
  try {
    return JSON.parse(message);
  } catch {
    return undefined;
  }
}

/** The request log lines among a delivery's events; anything else (a line the filter matched by mistake) is skipped with a word. */
export function requestLogLines(data: CloudWatchLogsDecodedData): RequestLogLine[] {
  const out: RequestLogLine[] = [];
  for (const e of data.logEvents) {
    const line = Line.safeParse(json(e.message));
    if (line.success) out.push(line.data as RequestLogLine);
    else logger.warn('not a request log line', { log_group: data.logGroup, log_event: e.id });
  }
  return out;
}

/** Deliveries so far of each line that asked the consumer to fail (by request id): this process's, as a warm environment's. */
const injectedFailures = new Map<string, number>();
const InjectedLine = z.object({ request_id: z.string(), [REQUEST_LOG_FAULT_FIELD]: z.number().int().positive() });

/**
 * Test runs only (FAULT_INJECTION=on, never in AWS): a delivery holding a line whose request sent
 * `X-Fault-Inject: request-log-fails=N` is refused as DynamoDB refuses a throttled write, its first N times.
 */
function failIfInjected(data: CloudWatchLogsDecodedData) {
  if (!faultInjectionOn()) return;
  for (const e of data.logEvents) {
    const line = InjectedLine.safeParse(json(e.message));
    if (!line.success) continue;
    const { request_id: id, [REQUEST_LOG_FAULT_FIELD]: failures } = line.data;
    const failed = injectedFailures.get(id) ?? 0;
    if (failed >= failures) continue;
    injectedFailures.set(id, failed + 1);
    throw Object.assign(new Error(`simulated refusal of the write of request ${id}'s log entry, ${failed + 1} of ${failures} (X-Fault-Inject)`), {
      name: 'ProvisionedThroughputExceededException',
    });
  }
}

/** Saves a delivery's entries; a failure throws, and Lambda retries the asynchronous invocation. */
export async function ingestRequestLogs(event: CloudWatchLogsEvent): Promise<number> {
  const data = decodeLogs(event);
  // CloudWatch Logs checks a new destination with a CONTROL_MESSAGE: nothing to save.
  if (data.messageType !== 'DATA_MESSAGE') return 0;
  const lines = requestLogLines(data);
  failIfInjected(data);
  await requestLogStore.save(lines);
  logger.info('request log entries saved', { entries: lines.length, log_group: data.logGroup });
  return lines.length;
}
