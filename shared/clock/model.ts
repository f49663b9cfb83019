import type { ClockState } from '../kernel/clock';

/** A partner's sandbox clock, one item per partner (the sandbox is its only environment with a clock). */
export interface ClockRecord extends ClockState {
  partner_id: string;
  /** While advancing: the clock's time when the advance began. */
  advanced_from?: string;
  /** While advancing: where the advance stops. */
  advancing_to?: string;
  /** While advancing: the advance's id; its steps and its end are conditional on it. */
  advance_id?: string;
  /** While advancing: real time of the advance's last step; an advance idle for ADVANCE_STALE_MS may be taken over. */
  heartbeat_at?: string;
  updated_at: string;
}
