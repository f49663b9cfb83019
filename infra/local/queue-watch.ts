import { ListQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Watches that the local SQS server still has every queue the stack provisioned (the queues, their DLQs, the
 * on-failure queues). The server keeps them in memory: one deleted by hand or by a script aimed at the wrong
 * endpoint leaves the stack answering 201 while its events go nowhere. `onGone` is told the missing queues once.
 */
export function watchQueues(sqs: SQSClient, urls: string[], onGone: (missing: string[]) => void, intervalMs = 1_000) {
  let told = false;
  const check = async () => {
    const listed = new Set<string>();
    let NextToken: string | undefined;
    do {
      const page = await sqs.send(new ListQueuesCommand({ MaxResults: 1000, NextToken }));
      for (const u of page.QueueUrls ?? []) listed.add(u);
      NextToken = page.NextToken;
    } while (NextToken);
    const missing = urls.filter((u) => !listed.has(u));
    if (missing.length && !told) {
      told = true;
      onGone(missing);
    }
  };
  const timer = setInterval(() => void check().catch(() => undefined), intervalMs);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
