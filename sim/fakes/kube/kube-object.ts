/**
 * The shape of a Kubernetes object as the fake API server keeps it: plain JSON with a typed
 * `metadata`. Everything else is left open, because the server must store what clients send.
 */

/** Object metadata fields the fake server reads or manages; unknown fields are kept as sent. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [field: string]: unknown;
}

/** A stored Kubernetes object (JSON form: timestamps are RFC 3339 strings). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Converts what a test or client handed over (a client-node model with `Date`s, a literal…) to
 * the JSON form the server stores, as a real server would after decoding the request body.
 */
export function toKubeObject(input: object): KubeObject {
  const json: unknown = JSON.parse(JSON.stringify(input));
  if (!isJsonObject(json)) throw new TypeError('a Kubernetes object must be a JSON object');
  const metadata = json.metadata ?? {};
  if (!isJsonObject(metadata)) throw new TypeError('metadata must be a JSON object');
  return { ...json, metadata };
}

/** A deep copy, so no caller ever shares mutable state with the store. */
export function cloneObject<T>(value: T): T {
  return structuredClone(value);
}

/** Structural JSON equality (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
    const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
    return keysA.length === keysB.length && keysA.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy with every object's keys in Go's `encoding/json` map order (sorted by UTF-8 bytes). */
export function sortedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => sortedKeys(item)) as T;
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return Object.fromEntries(keys.map((k) => [k, sortedKeys(value[k])])) as T;
}

/** RFC 3339 with second precision and `Z`, the way the API server renders `metav1.Time`. */
export function formatKubeTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
