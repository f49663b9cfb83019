import type { AuditEvent } from '../platform/audit';
import type { RequestState } from './context';

/** The audit line of a keyed write: who, which route and path, the status answered; never a body. */
export function auditEventOf(state: RequestState, status: number, replayed: boolean): AuditEvent {
  const p = state.principal!;
  return {
    id: state.requestId,
    occurred_at: new Date(state.startedAt).toISOString(),
    member_id: p.memberId,
    key_prefix: p.keyId,
    via: p.via,
    environment: p.env,
    method: state.route.method,
    path: state.path,
    status,
    request_id: state.requestId,
    idempotent_replayed: replayed,
  };
}
