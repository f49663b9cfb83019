import * as z from 'zod';
import { loadConfig } from '../kernel/config';
import { headerValue } from './headers';
import type { ApiEvent } from './types';

/**
 * Fault injection for the crash tests, never enabled in AWS: with
 * FAULT_INJECTION=on (set only by the test runs of the local stack), a
 * request carrying `X-Fault-Inject: after-commit` dies after its operation
 * committed and before its response leaves, as a worker killed at that moment
 * would: no response and no post-operation write (a success's idempotency
 * record and audit line committed with the operation).
 */
const faultConfig = z.object({ FAULT_INJECTION: z.enum(['on', 'off']).default('off') });

export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash after commit (X-Fault-Inject)');
    this.name = 'SimulatedCrash';
  }
}

export function crashAfterCommit(event: ApiEvent): boolean {
  return loadConfig(faultConfig).FAULT_INJECTION === 'on' && headerValue(event, 'x-fault-inject') === 'after-commit';
}
