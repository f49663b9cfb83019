import * as z from 'zod';
import type { Seal } from '../db/client';
import { loadConfig } from '../kernel/config';
import { headerValue } from './headers';
import type { ApiEvent } from './types';

/**
 * Fault injection for the crash tests, never enabled in AWS: with
 * FAULT_INJECTION=on (set only by the test runs of the local stack), a
 * request carrying `X-Fault-Inject: after-commit` dies after its operation
 * committed and before its response leaves, as a worker killed at that moment
 * would: no response and no post-operation write (a success's idempotency
 * record and audit line committed with the operation). `X-Fault-Inject: at-commit`
 * fails the operation as it builds its commit, as a throttled transaction would:
 * a 500 with nothing of the operation's change written.
 */
const faultConfig = z.object({ FAULT_INJECTION: z.enum(['on', 'off']).default('off') });

export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash after commit (X-Fault-Inject)');
    this.name = 'SimulatedCrash';
  }
}

const injected = (event: ApiEvent, fault: 'after-commit' | 'at-commit') =>
  loadConfig(faultConfig).FAULT_INJECTION === 'on' && headerValue(event, 'x-fault-inject') === fault;

export function crashAfterCommit(event: ApiEvent): boolean {
  return injected(event, 'after-commit');
}

/** The route's seal, or one that throws DynamoDB's throttling error when the operation asks for its commit's items. */
export function failAtCommit<T>(event: ApiEvent, seal: Seal<T>): Seal<T> {
  if (!injected(event, 'at-commit')) return seal;
  return {
    items: () => {
      throw Object.assign(new Error('simulated throttling at commit (X-Fault-Inject)'), { name: 'ThrottlingException' });
    },
  };
}
