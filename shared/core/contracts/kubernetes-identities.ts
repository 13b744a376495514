import type { FunctionName } from './routing';

/**
 * Who podlift is in the cluster, as data: the CDK stack maps each function's IAM role to its
 * Kubernetes group with an EKS access entry, manifests/ binds each group and the watcher's
 * ServiceAccount to their rights, and the simulator's API server authenticates the functions and
 * the watcher by the same names, so the three cannot drift apart.
 */

/** The group of the functions that launch capacity (provisioner, interruption, disruption). */
export const FUNCTIONS_KUBERNETES_GROUP = 'podlift:functions';

/**
 * The termination function's own group: it drains and deletes nodes and NodeClaims, but never
 * creates a NodeClaim or writes a NodePool's or EC2NodeClass's status.
 */
export const TERMINATION_KUBERNETES_GROUP = 'podlift:termination';

/**
 * Each function's Kubernetes group. Functions that share an IAM role must share a group (EKS
 * has one access entry per role).
 */
export const KUBERNETES_GROUP_OF: Readonly<Record<FunctionName, string>> = {
  provisioner: FUNCTIONS_KUBERNETES_GROUP,
  interruption: FUNCTIONS_KUBERNETES_GROUP,
  disruption: FUNCTIONS_KUBERNETES_GROUP,
  termination: TERMINATION_KUBERNETES_GROUP,
};

/** The watcher's namespace (manifests/namespace.yaml). */
export const WATCHER_NAMESPACE = 'podlift';

/** The watcher's ServiceAccount (manifests/watcher-rbac.yaml, watcher-deployment.yaml). */
export const WATCHER_SERVICE_ACCOUNT = 'podlift-watcher';

/** The user name the API server gives a pod running as the watcher's ServiceAccount. */
export const WATCHER_KUBERNETES_USER = `system:serviceaccount:${WATCHER_NAMESPACE}:${WATCHER_SERVICE_ACCOUNT}`;
