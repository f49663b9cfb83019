/**
 * What a check of the rehearsal found. An error is what CloudFormation or a service would refuse at create time
 * (the deploy would fail or roll back); a warning is what the deploying team should know before it tries.
 */
export interface Finding {
  check: string;
  level: 'error' | 'warning';
  /** The template (stack name) and logical id, or the asset, it is about. */
  where: string;
  message: string;
}

/** A check's result: what it found, and figures for the report (`resources checked: 412`). */
export interface CheckResult {
  check: string;
  findings: Finding[];
  figures: Record<string, number | string>;
}

export const finding = (check: string, level: Finding['level'], where: string, message: string): Finding => ({ check, level, where, message });
