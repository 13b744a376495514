/** A node taint, as in core/v1 Taint. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** A pod toleration, as in core/v1 Toleration. */
export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  readonly tolerationSeconds?: number;
}

/**
 * Whether `toleration` tolerates `taint`, exactly as core/v1 Toleration.ToleratesTaint: an
 * empty effect matches every effect, an empty key matches every key, and the operator
 * (default Equal) then decides: Exists ignores the value, Equal compares it (absent = "").
 * So `{ operator: 'Exists' }` alone tolerates every taint.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      // An operator the API does not know tolerates nothing (as in Kubernetes).
      return false;
  }
}

/** Whether any of `tolerations` tolerates `taint`. */
export function taintTolerated(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/**
 * The first taint that keeps a pod with `tolerations` off a node, or undefined when it may
 * schedule there. Only NoSchedule and NoExecute block: PreferNoSchedule is a preference the
 * scheduler may ignore, so it never makes a node unusable.
 */
export function firstUntoleratedTaint(
  tolerations: readonly Toleration[],
  taints: readonly Taint[],
): Taint | undefined {
  return taints.find((t) => t.effect !== 'PreferNoSchedule' && !taintTolerated(tolerations, t));
}

/** `key=value:Effect`, or `key:Effect` when the value is empty, as kubectl prints taints. */
export function formatTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
}

/**
 * Taints a node carries only while it starts: kubernetes-sigs/karpenter pkg/scheduling/taints.go
 * `KnownEphemeralTaints` (the kubelet's not-ready and unreachable taints, the external cloud
 * provider's uninitialized taint, Karpenter's own unregistered taint).
 */
export const KNOWN_EPHEMERAL_TAINTS: readonly Taint[] = [
  { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
  { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
  { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
];

/** Taint-key prefixes of ephemeral taint families (taints.go `KnownEphemeralTaintKeyPrefixes`). */
const KNOWN_EPHEMERAL_TAINT_KEY_PREFIXES: readonly string[] = ['readiness.k8s.io/'];

/**
 * Whether `taint` is a known ephemeral one, as taints.go `IsKnownEphemeralTaint` decides: the
 * same key and effect as one of {@link KNOWN_EPHEMERAL_TAINTS} (core/v1 `Taint.MatchTaint`
 * ignores the value), or a key under one of the ephemeral prefixes.
 */
export function isKnownEphemeralTaint(taint: Taint): boolean {
  return (
    KNOWN_EPHEMERAL_TAINTS.some((t) => t.key === taint.key && t.effect === taint.effect) ||
    KNOWN_EPHEMERAL_TAINT_KEY_PREFIXES.some((prefix) => taint.key.startsWith(prefix))
  );
}
