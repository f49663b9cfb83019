import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { jobAsync } from '../../shared/async-invocations';
import type { BucketAccess } from '../../shared/buckets';
import { TABLES, type TableName } from '../../shared/db/tables';
import { jobLeadingKeys } from '../../shared/jobs/keys';
import { JOBS, type JobDef } from '../../shared/queues';
import { type AsyncTarget, invokedAsynchronously } from './async-invocation';
import { type BucketBinding, type QueueBinding, ServiceFunction } from './service-function';

/**
 * Periodic jobs: one EventBridge cron rule and one Lambda per entry of shared/queues.ts JOBS. EventBridge invokes
 * the function asynchronously: Lambda retries a failed run twice, then puts its record on the job's on-failure queue.
 */
export class JobsConstruct extends Construct {
  readonly functions: Record<string, ServiceFunction> = {};
  /** Job id -> its function and on-failure queue. */
  readonly async: Record<string, AsyncTarget> = {};

  /**
   * `sendable`: the queues, each bound only to the jobs that name it in `sendsTo`. Every job writes its own run
   * record in the access table (the watchdog's input) and may read that table; the data table and other
   * access-table writes only as its JobDef says (least privilege: the watchdog touches nothing else).
   */
  constructor(
    scope: Construct,
    id: string,
    props: {
      tables: Record<TableName, TableV2>;
      jobs?: JobDef[];
      sendable?: Record<string, QueueBinding>;
      /** The binding of a bucket of shared/buckets.ts, for the jobs that name buckets. */
      bucket?: (name: string, access: BucketAccess) => BucketBinding;
    },
  ) {
    super(scope, id);
    for (const job of props.jobs ?? JOBS) {
      const fn = new ServiceFunction(this, job.id, { entry: job.handler, description: job.description, timeout: Duration.minutes(15), memorySize: 1024 });
      fn.bind({
        tables: [
          {
            table: props.tables.access,
            def: TABLES.access,
            access: 'readwrite',
            writeLeadingKeys: [...jobLeadingKeys.own(job.id), ...(job.accessWrites ?? [])],
          },
          ...(job.dataTable === 'readwrite' ? [{ table: props.tables.data, def: TABLES.data, access: 'readwrite' as const }] : []),
        ],
        queues: (job.sendsTo ?? []).map((q) => {
          const b = props.sendable?.[q];
          if (!b) throw new Error(`job ${job.id} sends to queue ${q}, which is not bound`);
          return b;
        }),
        buckets: Object.entries(job.buckets ?? {}).map(([name, access]) => {
          if (!props.bucket) throw new Error(`job ${job.id} uses bucket ${name}, which is not bound`);
          return props.bucket(name, access);
        }),
      });
      // The target's retries are EventBridge's, for an invocation Lambda refused; a failed run is Lambda's to retry (EventInvokeConfig).
      new Rule(this, `${job.id}Rule`, {
        description: job.description,
        schedule: Schedule.expression(job.schedule),
        targets: [new LambdaFunction(fn, { retryAttempts: 2 })],
      });
      this.functions[job.id] = fn;
      this.async[job.id] = invokedAsynchronously(fn, jobAsync(job));
    }
  }
}
