import type { Clock } from '../../core/ports/time';

/**
 * A map whose entries expire `ttlMs` after they were written, by the injected clock. Reads do
 * not extend an entry (unlike Karpenter's go-cache use), so how stale an entry can be is bounded
 * even when another process deletes what it describes.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  /** The value under `key`; undefined when absent or expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
