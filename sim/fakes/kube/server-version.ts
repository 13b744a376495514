/**
 * The Kubernetes version the fake API server claims: the `/version` document and the parts of
 * the API that depend on it (policy/v1 PodDisruptionBudgets from 1.21, policy/v1 Evictions from
 * 1.22), so a test can stand in for an older cluster and see the answers an older one gives.
 */

/** A parsed `gitVersion`: `v1.29.4-eks-036c24b` → 1, 29, 4, `-eks-036c24b`. */
export interface FakeServerVersion {
  readonly gitVersion: string;
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** The build suffix after the patch number (`-eks-036c24b`), or `''`. */
  readonly suffix: string;
}

/** What the fake server claims unless told otherwise: a current EKS build. */
export const DEFAULT_FAKE_KUBERNETES_VERSION = 'v1.32.3-eks-4096722';

/** Parses `gitVersion`; throws for a string that is not `v<major>.<minor>.<patch>[suffix]`. */
export function parseFakeServerVersion(gitVersion: string): FakeServerVersion {
  const match = /^v(\d+)\.(\d+)\.(\d+)(.*)$/.exec(gitVersion);
  if (!match) {
    throw new Error(`fake API server: version ${JSON.stringify(gitVersion)} is not like v1.32.3[-eks-…]`);
  }
  const [, major, minor, patch, suffix] = match;
  return { gitVersion, major: Number(major), minor: Number(minor), patch: Number(patch), suffix };
}

/** Whether `version` is at least `major.minor`. */
export function isAtLeast(version: FakeServerVersion, major: number, minor: number): boolean {
  return version.major > major || (version.major === major && version.minor >= minor);
}

/**
 * The `GET /version` body, shaped like `k8s.io/apimachinery/pkg/version.Info`. Builds with a
 * vendor suffix report the minor with a `+` (EKS answers `"minor": "29+"`).
 */
export function versionInfo(version: FakeServerVersion): Record<string, string> {
  return {
    major: String(version.major),
    minor: `${version.minor}${version.suffix ? '+' : ''}`,
    gitVersion: version.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.6',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
