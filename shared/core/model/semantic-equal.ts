import { isQuantity, parseQuantityMilli } from './quantity';

/**
 * Fields whose values are maps of resource name → Quantity (NodePool `status.resources`,
 * NodeClaim `status.capacity` / `status.allocatable`, `spec.resources.requests`).
 */
const QUANTITY_MAPS = new Set(['resources', 'capacity', 'allocatable', 'requests', 'limits']);

/**
 * Whether two JSON values mean the same object, as k8s.io/apimachinery
 * pkg/api/equality `Semantic.DeepEqual` judges them (what Karpenter's controllers compare a
 * status with before patching it, e.g. kubernetes-sigs/karpenter
 * pkg/controllers/node/health/controller.go `annotateTerminationGracePeriod`): key order is
 * irrelevant — a real API server hands custom resources back with their keys sorted, whatever
 * order they were written in — a key holding `undefined` is absent, and a Quantity equals
 * another of the same value in a different form (`"1"` and `"1000m"`, `"1Gi"` and
 * `"1073741824"`).
 */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, false);
}

function equal(a: unknown, b: unknown, quantities: boolean): boolean {
  if (a === b) return true;
  if (quantities && isQuantity(a) && isQuantity(b)) return parseQuantityMilli(a) === parseQuantityMilli(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => equal(item, b[i], false))
    );
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keysA = definedKeys(a);
  const keysB = definedKeys(b);
  return (
    keysA.length === keysB.length &&
    keysA.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k], QUANTITY_MAPS.has(k) || quantities))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function definedKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((k) => value[k] !== undefined);
}
