/**
 * A map of promises that expire: a Lambda keeps one at module scope so warm invocations reuse
 * what an earlier one read, and re-read it once it is `ttlMs` old. The cache holds no clock;
 * callers pass the current time, so it works with any injected `Clock`.
 *
 * In-flight loads are shared (concurrent callers wait for the same call). A load that fails
 * is forgotten at once, so the next caller tries again.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { readonly value: Promise<T>; readonly loadedAt: number }>();

  /** The value cached under `key` if it is younger than `ttlMs` at `now`, else what `load` returns. */
  get(key: string, now: number, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry !== undefined && now - entry.loadedAt < ttlMs) return entry.value;
    const value = load();
    const fresh = { value, loadedAt: now };
    this.entries.set(key, fresh);
    value.catch(() => {
      if (this.entries.get(key) === fresh) this.entries.delete(key);
    });
    return value;
  }

  /** Forgets `key`, or everything. */
  clear(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
