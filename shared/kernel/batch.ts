import { logger } from './logger';

/**
 * Runs every record of a queue batch at once and reports the ones that failed
 * by message id (SQS partial batch failures): only those are received again,
 * and a poison message reaches the DLQ alone.
 */
export async function eachRecord<R extends { messageId: string; body: string }>(
  records: R[],
  what: string,
  work: (body: unknown) => Promise<unknown>,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  // A body that is not JSON fails alone, like any other record.
  const results = await Promise.allSettled(records.map(async (r) => work(JSON.parse(r.body))));
  const batchItemFailures = results.flatMap((res, i) => {
    if (res.status === 'fulfilled') return [];
    const error = res.reason instanceof Error ? res.reason.message : String(res.reason);
    logger.error(`${what} failed`, { message_id: records[i]!.messageId, error });
    return [{ itemIdentifier: records[i]!.messageId }];
  });
  return { batchItemFailures };
}

/** Each record's body as JSON, or undefined when it is not (eachRecord reports that record as failed). */
export function parsedBodies<T>(records: { body: string }[]): (T | undefined)[] {
  return records.map((r) => {
    try {
      return JSON.parse(r.body) as T;
    } catch {
      return undefined;
    }
  });
}
