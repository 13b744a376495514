/**
 * A load-through cache of asynchronous lookups with a time to live. Concurrent callers of a key
 * share one in-flight load; a failed load is forgotten at once (the next caller tries again);
 * `keep` can refuse to cache a result (e.g. "not found yet"). The caller passes the time, so
 * the cache can live in a Lambda's module scope without holding a clock.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { readonly value: Promise<T>; expiresAt: number }>();

  /** The cached value of `key`, or the result of `load()` kept for `ttlMs` from `now`. */
  getOrLoad(
    key: string,
    now: number,
    ttlMs: number,
    load: () => Promise<T>,
    keep: (value: T) => boolean = () => true,
  ): Promise<T> {
    const cached = this.entries.get(key);
    if (cached !== undefined && now < cached.expiresAt) return cached.value;
    // Until the load settles the entry never expires, so concurrent callers share it.
    const entry = { value: load(), expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    entry.value.then(
      (value) => {
        if (this.entries.get(key) !== entry) return;
        if (keep(value)) entry.expiresAt = now + ttlMs;
        else this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  /** Forgets one key, or everything. */
  clear(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
