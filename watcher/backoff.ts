/** Options of {@link Backoff}. */
export interface BackoffOptions {
  /** First delay, in milliseconds. */
  readonly initialMs: number;
  /** Delays never exceed this, in milliseconds. */
  readonly maxMs: number;
  /**
   * Growth per attempt.
   * @default 2
   */
  readonly factor?: number;
  /**
   * Fraction of each delay taken off at random, so restarted watchers do not retry in step.
   * @default 0
   */
  readonly jitter?: number;
  /**
   * Random source in [0, 1) for the jitter.
   * @default Math.random
   */
  readonly random?: () => number;
}

/**
 * Exponential backoff: `initialMs × factor^n`, capped at `maxMs`, less up to `jitter` of it.
 * Pure arithmetic; the caller waits with its injected timers.
 */
export class Backoff {
  private attempt = 0;
  private readonly options: Required<BackoffOptions>;

  constructor(options: BackoffOptions) {
    this.options = { factor: 2, jitter: 0, random: Math.random, ...options };
  }

  /** The delay before the next try, and counts one more failure. */
  next(): number {
    const { initialMs, maxMs, factor, jitter, random } = this.options;
    const base = Math.min(maxMs, initialMs * factor ** this.attempt);
    this.attempt++;
    return Math.round(base * (1 - jitter * random()));
  }

  /** After a success: the next failure waits `initialMs` again. */
  reset(): void {
    this.attempt = 0;
  }
}
