import { PartnerApiError, PartnerNetworkError } from '../../sdk/src/index';

/** A check of the smoke that did not hold; its message is the step's line. */
export class CheckFailed extends Error {}

/** Ends the run: a step failed and its line is printed. */
export class StepFailed extends Error {
  constructor(readonly step: string) {
    super(`step ${step} failed`);
  }
}

/** What a step answers: the value the next steps use, and its line's detail. */
export type StepResult<T> = [value: T, detail: string];

/** An error as one line: the API's code, message and request id, or why no answer came. */
export function describeError(e: unknown): string {
  if (e instanceof PartnerApiError) return `${e.status} ${e.code}: ${e.message} (request ${e.request_id || 'none'})`;
  if (e instanceof PartnerNetworkError) return `no answer from the service: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** The text without the given secrets, nor anything shaped like an API key or a webhook secret. */
export function redact(text: string, secrets: string[] = []): string {
  let out = text;
  for (const s of secrets) if (s) out = out.replaceAll(s, '[redacted]');
  return out.replace(/\bsk_(live|test)_[A-Za-z0-9_]+/g, 'sk_$1_[redacted]').replace(/\bwhsec_[A-Za-z0-9+/=_-]+/g, 'whsec_[redacted]');
}

/**
 * One line per step (`ok    quote          42 ms  ...`), then a summary. Every line goes
 * through `redact`: no key or webhook secret reaches the terminal or a CI log.
 */
export class Report {
  private readonly started = Date.now();
  private ok = 0;
  private skipped = 0;
  failed: string | undefined;

  constructor(
    private readonly secrets: string[],
    private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  ) {}

  redact(text: string): string {
    return redact(text, this.secrets);
  }

  private line(status: 'ok' | 'skip' | 'FAIL', name: string, ms: number | undefined, detail: string) {
    const took = ms === undefined ? '-' : `${ms} ms`;
    this.write(this.redact(`${status.padEnd(5)} ${name.padEnd(12)} ${took.padStart(8)}  ${detail}`));
  }

  /** Runs one step; a failure prints its line and throws StepFailed, which ends the journey. */
  async step<T>(name: string, run: () => Promise<StepResult<T>>): Promise<T> {
    const t0 = Date.now();
    try {
      const [value, detail] = await run();
      this.ok++;
      this.line('ok', name, Date.now() - t0, detail);
      return value;
    } catch (e) {
      if (e instanceof StepFailed) throw e;
      this.failed ??= name;
      this.line('FAIL', name, Date.now() - t0, describeError(e));
      throw new StepFailed(name);
    }
  }

  skip(name: string, reason: string) {
    this.skipped++;
    this.line('skip', name, undefined, reason);
  }

  /** What is undone at the end (even after a failure): one line each; a failure here fails the run too. */
  async cleanup(name: string, run: () => Promise<string>) {
    const t0 = Date.now();
    try {
      const detail = await run();
      this.line('ok', name, Date.now() - t0, detail);
    } catch (e) {
      this.failed ??= name;
      this.line('FAIL', name, Date.now() - t0, `${describeError(e)}: it is left behind`);
    }
  }

  summary(target: string): number {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const counts = `${this.ok} ok, ${this.skipped} skipped`;
    this.write(
      this.redact(
        this.failed
          ? `smoke FAILED at ${this.failed} (${counts}) in ${seconds} s against ${target}`
          : `smoke passed (${counts}) in ${seconds} s against ${target}`,
      ),
    );
    return this.failed ? 1 : 0;
  }
}
