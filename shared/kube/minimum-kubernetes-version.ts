/**
 * The oldest Kubernetes podlift supports: 1.25. It needs policy/v1 Evictions (1.22) and
 * PodDisruptionBudgets (1.21), and its CRDs carry CEL rules (`x-kubernetes-validations`):
 * servers before 1.23 do not know the field (kubectl's validation refuses the CRDs), and 1.23
 * and 1.24 enforce it only behind an alpha feature gate (CustomResourceValidationExpressions,
 * beta and on by default in 1.25).
 */
export const MINIMUM_KUBERNETES_VERSION = '1.25';

/** {@link MINIMUM_KUBERNETES_VERSION} as numbers. */
export const MINIMUM_KUBERNETES_RELEASE = { major: 1, minor: 25 } as const;
