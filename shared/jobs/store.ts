import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Table } from '../db/client';
import { jobKeys } from './keys';

/** What the service remembers of a scheduled job's runs (the job watchdog compares it with the schedule). */
export interface JobRunRecord {
  job: string;
  /** When the job was first seen (run or checked): no run is expected before it. */
  first_seen_at: string;
  /** Last time the watchdog (or jobs:status) looked at it. */
  last_checked_at?: string;
  last_started_at?: string;
  /** Scheduled time of the last successful run (the EventBridge event's time; now for a manual run). */
  last_success_scheduled_at?: string;
  last_succeeded_at?: string;
  last_duration_ms?: number;
  last_failed_at?: string;
  /** Message of the last failure: an error name and message, never data. */
  last_error?: string;
}

export function makeJobStore(table: Table = accessTable) {
  const update = async (jobId: string, now: Date, set: string, values: Record<string, unknown>, since = now) => {
    const r = await table.client.send(
      new UpdateCommand({
        TableName: table.name(),
        Key: jobKeys.run(jobId),
        UpdateExpression: `SET #type = :type, job = :job, first_seen_at = if_not_exists(first_seen_at, :since), ${set}`,
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':type': 'job_run', ':job': jobId, ':now': now.toISOString(), ':since': since.toISOString(), ...values },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const { pk: _pk, sk: _sk, type: _t, ...rest } = r.Attributes ?? {};
    return rest as JobRunRecord;
  };
  return {
    /** The record, created with its first sighting if there is none. */
    seen: (jobId: string, now: Date) => update(jobId, now, 'last_checked_at = :now', {}),
    /** A run starts; a job first seen through its run is expected from its scheduled time on. */
    started: (jobId: string, scheduledAt: Date, now: Date) => update(jobId, now, 'last_started_at = :now', {}, scheduledAt < now ? scheduledAt : now),
    succeeded: (jobId: string, scheduledAt: string, durationMs: number, now: Date) =>
      update(jobId, now, 'last_succeeded_at = :now, last_success_scheduled_at = :s, last_duration_ms = :d', { ':s': scheduledAt, ':d': durationMs }),
    failed: (jobId: string, error: string, now: Date) => update(jobId, now, 'last_failed_at = :now, last_error = :e', { ':e': error.slice(0, 500) }),
    async get(jobId: string): Promise<JobRunRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: table.name(), Key: jobKeys.run(jobId), ConsistentRead: true }));
      if (!r.Item) return undefined;
      const { pk: _pk, sk: _sk, type: _t, ...rest } = r.Item;
      return rest as JobRunRecord;
    },
  };
}

export const jobStore = makeJobStore();
