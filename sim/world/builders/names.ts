/**
 * Default object names: `pod-1`, `pod-2`, … and `node-1`, … counting up per kind for the life
 * of the module (per test file under vitest), so objects built without a name never collide.
 */
const counters = new Map<string, number>();

/** The next default name of `kind`, e.g. `pod-3`. */
export function nextName(kind: 'pod' | 'node'): string {
  const next = (counters.get(kind) ?? 0) + 1;
  counters.set(kind, next);
  return `${kind}-${next}`;
}
