import { CloudError, PodliftError } from '../core/model/errors';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { MINIMUM_KUBERNETES_RELEASE, MINIMUM_KUBERNETES_VERSION } from './minimum-kubernetes-version';

/** The release an API server reports on `GET /version`. */
export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
  /** As reported: `v1.29.4-eks-036c24b`. */
  readonly gitVersion: string;
}

/**
 * The cluster runs a Kubernetes older than podlift supports ({@link MINIMUM_KUBERNETES_VERSION}):
 * evictions, budgets or the CRDs' validation would fail in ways that look like other faults.
 */
export class UnsupportedKubernetesVersionError extends PodliftError {
  readonly minimum = MINIMUM_KUBERNETES_VERSION;

  constructor(readonly version: KubernetesVersion) {
    super(
      `checking the Kubernetes version: the API server runs ${version.gitVersion}; podlift needs Kubernetes ${MINIMUM_KUBERNETES_VERSION} or newer (policy/v1 evictions and PodDisruptionBudgets, CEL validation in its CRDs)`,
    );
    this.name = 'UnsupportedKubernetesVersionError';
  }
}

/** Whether `e` is an {@link UnsupportedKubernetesVersionError}. */
export function isUnsupportedKubernetesVersionError(e: unknown): e is UnsupportedKubernetesVersionError {
  return e instanceof UnsupportedKubernetesVersionError;
}

/**
 * `v1.29.4-eks-036c24b` → 1.29. Vendor builds keep the `v<major>.<minor>.` prefix (EKS `-eks-…`,
 * k3s `+k3s1`, GKE `-gke.…`); undefined for anything else.
 */
export function parseGitVersion(gitVersion: string): KubernetesVersion | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.|$)/.exec(gitVersion.trim());
  return match ? { major: Number(match[1]), minor: Number(match[2]), gitVersion } : undefined;
}

/** Whether `version` is at least {@link MINIMUM_KUBERNETES_VERSION}. */
export function isSupportedKubernetesVersion(version: KubernetesVersion): boolean {
  const { major, minor } = MINIMUM_KUBERNETES_RELEASE;
  return version.major > major || (version.major === major && version.minor >= minor);
}

/**
 * Reads the server's release (`GET /version`, which every authenticated caller may read) and
 * checks it against {@link MINIMUM_KUBERNETES_VERSION}.
 * @throws UnsupportedKubernetesVersionError for an older server; CloudError when the version
 *   cannot be read or its gitVersion is not `v<major>.<minor>.…`.
 */
export async function checkServerVersion(api: KubeApi): Promise<KubernetesVersion> {
  let gitVersion: string;
  try {
    gitVersion = (await (await api.version()).getCode()).gitVersion;
  } catch (error) {
    throw kubeError(error, 'checking the Kubernetes version', '/version');
  }
  const version = parseGitVersion(gitVersion ?? '');
  if (!version) {
    throw new CloudError(
      `checking the Kubernetes version: the API server reports gitVersion ${JSON.stringify(gitVersion)}, not v<major>.<minor>.<patch>`,
      undefined,
      false,
    );
  }
  if (!isSupportedKubernetesVersion(version)) throw new UnsupportedKubernetesVersionError(version);
  return version;
}
