import type { Clock } from '../../core/clock';

interface Entry<T> {
  readonly value: Promise<T>;
  /** Until the load settles, the entry never expires, so concurrent callers share one load. */
  expiresAt: number;
}

/**
 * A per-key cache of asynchronous loads with a time-to-live read from the injected clock.
 * Concurrent callers for the same key share one in-flight load; a load that throws, or whose
 * value `keep` rejects, is forgotten so the next caller tries again.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly clock: Clock) {}

  /** The cached value for `key`, or the result of `load`, kept for `ttlMs` after it settles. */
  getOrLoad(
    key: string,
    ttlMs: number,
    load: () => Promise<T>,
    keep: (value: T) => boolean = () => true,
  ): Promise<T> {
    const now = this.clock.now();
    const cached = this.entries.get(key);
    if (cached !== undefined && now < cached.expiresAt) return cached.value;
    const entry: Entry<T> = { value: load(), expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.value.then(
      (value) => {
        if (this.entries.get(key) !== entry) return;
        if (keep(value)) entry.expiresAt = this.clock.now() + ttlMs;
        else this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }
}
