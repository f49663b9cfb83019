import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A client's DynamoDB calls and sequential stages, as counted so far; `log` names each call (operation and partition) when asked for. */
export interface StageCounter {
  calls: number;
  stages: number;
  log?: string[];
}

/**
 * Counts the calls of `client` and their sequential stages: a call that starts
 * while none is in flight starts a new stage (requests run one at a time).
 * `skip` leaves out calls that are not the request's (the bench: the request
 * log's consumer, another Lambda in AWS).
 */
export function countStages(client: DynamoDBClient, opts: { skip?: () => boolean; log?: boolean } = {}): StageCounter {
  const counter: StageCounter = { calls: 0, stages: 0, ...(opts.log ? { log: [] } : {}) };
  let inFlight = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (opts.skip?.()) return next(args);
      counter.calls++;
      if (counter.log) {
        // The partition of a keyed call, marshalled or not (whichever the document client's middleware made it yet).
        const pk = (args.input as { Key?: { pk?: string | { S?: string } } }).Key?.pk;
        counter.log.push(`${context.commandName?.replace(/Command$/, '')} ${typeof pk === 'object' ? pk.S : (pk ?? '')}`.trim());
      }
      if (inFlight++ === 0) counter.stages++;
      try {
        return await next(args);
      } finally {
        inFlight--;
      }
    },
    { step: 'initialize', name: 'benchStageCounter' },
  );
  return counter;
}
