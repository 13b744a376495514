import { WATCHER_NAMESPACE, WATCHER_SERVICE_ACCOUNT } from '../contracts/kubernetes-identities';
import type { ManifestObject } from './install-objects';

/**
 * kOps has no EKS access entries: the functions authenticate with a ServiceAccount's token
 * (the SSM parameter `/podlift/<cluster>/cluster`, shared/aws/eks/kops-cluster-parameter.ts).
 * These objects give that ServiceAccount what the access entries' groups get on EKS: the
 * ClusterRoles and Roles of manifests/functions-rbac.yaml and termination-rbac.yaml (one token
 * serves all four functions in kOps mode).
 */

/** The ServiceAccount the functions' token belongs to in kOps mode. */
export const KOPS_FUNCTIONS_SERVICE_ACCOUNT = 'podlift-functions';

/** The roles the functions' ServiceAccount is bound to: ClusterRoles, and Roles in the namespace. */
const CLUSTER_ROLES = ['podlift-functions', 'podlift-termination'];
const ROLES = ['podlift-functions-lease', 'podlift-termination-lease'];

/** The ServiceAccount and its bindings. */
export function kopsIdentityObjects(): ManifestObject[] {
  const labels = { 'app.kubernetes.io/name': 'podlift-functions', 'app.kubernetes.io/part-of': 'podlift' };
  const subject = {
    kind: 'ServiceAccount',
    name: KOPS_FUNCTIONS_SERVICE_ACCOUNT,
    namespace: WATCHER_NAMESPACE,
  };
  const binding = (kind: 'ClusterRole' | 'Role', role: string): ManifestObject => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: kind === 'ClusterRole' ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: {
      name: `${role}-sa`,
      ...(kind === 'Role' ? { namespace: WATCHER_NAMESPACE } : {}),
      labels,
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
    subjects: [subject],
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: KOPS_FUNCTIONS_SERVICE_ACCOUNT, namespace: WATCHER_NAMESPACE, labels },
    },
    ...CLUSTER_ROLES.map((role) => binding('ClusterRole', role)),
    ...ROLES.map((role) => binding('Role', role)),
  ];
}

/**
 * `objects` with the watcher's ServiceAccount annotated with its IAM role for IRSA (kOps' pod
 * identity webhook), in the one object the installer applies for it: a second apply of the same
 * object by the same field manager would drop what the first set.
 */
export function withWatcherRole(objects: readonly ManifestObject[], roleArn: string): ManifestObject[] {
  return objects.map((o) =>
    o.kind === 'ServiceAccount' && o.metadata.name === WATCHER_SERVICE_ACCOUNT
      ? {
          ...o,
          metadata: {
            ...o.metadata,
            annotations: {
              ...(o.metadata.annotations as Record<string, string> | undefined),
              'eks.amazonaws.com/role-arn': roleArn,
            },
          },
        }
      : o,
  );
}
