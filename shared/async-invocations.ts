import { JOBS, type JobDef } from './queues';
import { REQUEST_LOG_CONSUMER } from './request-logs/entry';

/**
 * The functions AWS services invoke asynchronously: Lambda queues the event and the caller does not wait.
 * CloudWatch Logs' subscription filters (the request log's consumer) and EventBridge's rules (the jobs) invoke
 * that way; S3 and SNS would too, but no bucket or topic of the stack notifies a function (the photo bucket
 * notifies a queue). Cognito's triggers and API Gateway invoke synchronously.
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html)
 *
 * Lambda retries a function error twice, 1 minute then 2 minutes later, and keeps a throttled event at most its
 * maximum age; then it sends the invocation record (the event, the error) to the function's on-failure
 * destination: an SQS queue of its own (infra/constructs/async-invocation.ts), alarmed. The local runtime
 * invokes these functions the same way (infra/local/async-invoke.ts).
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html)
 */
export interface AsyncInvocationDef {
  /** Names the on-failure queue (`<key>-failures` locally, `LocalName` `onFailure:<key>`) and its alarm (`<key>AsyncFailures`). */
  key: string;
  /** The function's handler entry. */
  entry: string;
  /** How long Lambda keeps trying an event (throttles included) before it gives up on it: 60 s to 6 h. */
  maxEventAgeSeconds: number;
}

/** Lambda's default, written down: the first attempt and two more. */
export const ASYNC_RETRY_ATTEMPTS = 2;
/** What an on-failure queue keeps: two weeks to read, fix and re-drive (SQS's maximum). */
export const ON_FAILURE_RETENTION_DAYS = 14;

/** The local on-failure queue of a function (`<key>-failures`). */
export const onFailureQueueName = (key: string) => `${key}-failures`;

/**
 * The request log's consumer keeps an event as long as Lambda allows (6 h): its writes are keyed by request id,
 * so an entry saved late is still right and listed at its own time, and a burst that throttles the consumer
 * delays partners' logs instead of losing them.
 */
export const REQUEST_LOG_ASYNC: AsyncInvocationDef = { key: 'requestLog', entry: REQUEST_LOG_CONSUMER, maxEventAgeSeconds: 6 * 3600 };

/**
 * A job keeps its run an hour: enough for both retries of a run that timed out twice (15 + 1 + 15 + 2 min
 * before the third attempt starts), and no later than the watchdog's default grace (60 min), after which the
 * job is reported overdue and the operator runs it again: a run that had not started by then is handed to
 * the on-failure queue (EventAgeExceeded) rather than played on top of that. Every job is safe to run again.
 */
export const JOB_MAX_EVENT_AGE_SECONDS = 3600;
export const jobAsync = (job: JobDef): AsyncInvocationDef => ({ key: job.id, entry: job.handler, maxEventAgeSeconds: JOB_MAX_EVENT_AGE_SECONDS });

/** Every asynchronously invoked function of the stack. */
export const ASYNC_INVOCATIONS: AsyncInvocationDef[] = [REQUEST_LOG_ASYNC, ...JOBS.map(jobAsync)];
