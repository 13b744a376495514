import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  KUBERNETES_GROUP_OF,
  TERMINATION_KUBERNETES_GROUP,
  WATCHER_KUBERNETES_USER,
  WATCHER_NAMESPACE,
} from '../../shared/core/contracts/kubernetes-identities';
import type { FunctionName } from '../../shared/core/contracts/routing';
import {
  type FakeKubeAuthorization,
  type PolicyRule,
  RbacPolicy,
  SYSTEM_AUTHENTICATED,
  SYSTEM_MASTERS,
  type UserInfo,
} from '../fakes/kube';
import { CLUSTER } from './aws/region';

/** A bearer token and the user the API server authenticates it as. */
export interface KubeIdentity {
  readonly token: string;
  readonly user: UserInfo;
}

const ACCOUNT = '123456789012';

/**
 * The user a function is in an EKS cluster. Its IAM role's access entry (type STANDARD, no
 * username) makes EKS name it `arn:aws:sts::<account>:assumed-role/<role>/{{SessionName}}`,
 * the session being the Lambda function's, with the entry's `kubernetesGroups` and
 * `system:authenticated` (infra/parts/cluster-identities.ts creates the entries from
 * shared/core/contracts/kubernetes-identities.ts). Provisioner, interruption and disruption share
 * one role; termination has its own.
 */
export function functionIdentity(fn: FunctionName): KubeIdentity {
  const group = KUBERNETES_GROUP_OF[fn];
  const role = group === TERMINATION_KUBERNETES_GROUP ? 'TerminationRole' : 'FunctionsRole';
  return {
    token: `k8s-aws-v1.sim-${fn}`,
    user: {
      name: `arn:aws:sts::${ACCOUNT}:assumed-role/Podlift-${CLUSTER}-${role}/podlift-${CLUSTER}-${fn}`,
      groups: [group, SYSTEM_AUTHENTICATED],
    },
  };
}

/** The watcher: a pod running as its ServiceAccount, with a projected service-account token. */
export const WATCHER_IDENTITY: KubeIdentity = {
  token: 'sim-watcher-service-account-token',
  user: {
    name: WATCHER_KUBERNETES_USER,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${WATCHER_NAMESPACE}`, SYSTEM_AUTHENTICATED],
  },
};

/**
 * The cluster admin (kubeadm's `kubernetes-admin`, in `system:masters`): what a test's own
 * client authenticates as with the fake server's default token, never a podlift component.
 */
export const ADMIN_IDENTITY: KubeIdentity = {
  token: 'podlift-test-token',
  user: { name: 'kubernetes-admin', groups: [SYSTEM_MASTERS, SYSTEM_AUTHENTICATED] },
};

/**
 * The installer (infra/parts/cluster-install.ts): its role's access entry has no Kubernetes
 * groups but the AmazonEKSClusterAdminPolicy access policy, which EKS's authorizer evaluates
 * beside RBAC ({@link INSTALLER_ACCESS_POLICY_RULES}).
 */
export const INSTALLER_IDENTITY: KubeIdentity = {
  token: 'k8s-aws-v1.sim-installer',
  user: {
    name: `arn:aws:sts::${ACCOUNT}:assumed-role/Podlift-${CLUSTER}-InstallRole/podlift-${CLUSTER}-install`,
    groups: [SYSTEM_AUTHENTICATED],
  },
};

/**
 * AmazonEKSClusterAdminPolicy's rules: cluster-admin's (EKS user guide, access-policy
 * permissions: `*` on every resource and non-resource URL).
 */
export const INSTALLER_ACCESS_POLICY_RULES: readonly PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];

/** Every identity the simulated cluster knows: the four functions, the watcher, the installer and the admin. */
export function podliftIdentities(): readonly KubeIdentity[] {
  const functions: FunctionName[] = ['provisioner', 'interruption', 'disruption', 'termination'];
  return [...functions.map(functionIdentity), WATCHER_IDENTITY, INSTALLER_IDENTITY, ADMIN_IDENTITY];
}

const MANIFESTS = new URL('../../manifests/', import.meta.url);
let policy: RbacPolicy | undefined;

/**
 * The RBAC objects of every file manifests/kustomization.yaml installs, read once per process:
 * what `kubectl apply -k manifests/` would give the cluster. The CRDs are skipped unparsed
 * (they hold no RBAC and are most of the bytes).
 */
export function manifestsRbacPolicy(): RbacPolicy {
  if (policy) return policy;
  const kustomization = parse(readFileSync(new URL('kustomization.yaml', MANIFESTS), 'utf8')) as {
    resources: string[];
  };
  const texts = kustomization.resources
    .map((file) => readFileSync(new URL(file, MANIFESTS), 'utf8'))
    .filter((text) => !/^kind: CustomResourceDefinition$/m.test(text));
  policy = RbacPolicy.fromYaml(texts);
  return policy;
}

/** The fake API server's authentication and RBAC for a simulated podlift cluster. */
export function podliftAuthorization(): FakeKubeAuthorization {
  return {
    users: new Map(podliftIdentities().map((i) => [i.token, i.user])),
    policy: manifestsRbacPolicy(),
    accessPolicies: new Map([[INSTALLER_IDENTITY.user.name, INSTALLER_ACCESS_POLICY_RULES]]),
  };
}
