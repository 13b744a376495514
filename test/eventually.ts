import { vi } from 'vitest';

/**
 * Waits until `check` passes. Real HTTP round trips to the fake API server take their time on
 * a loaded CI machine, so the timeout is generous (10 s); a passing check returns at once.
 */
export function eventually<T>(check: () => T, options: { interval?: number } = {}): Promise<T> {
  return vi.waitFor(check, { interval: options.interval ?? 10, timeout: 10_000 });
}
