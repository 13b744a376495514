import { afterEach, describe, expect, it } from 'vitest';
import {
  checkServerVersion,
  isUnsupportedKubernetesVersionError,
  parseGitVersion,
} from '../../shared/kube/server-version';
import type { Harness } from './harness';
import { rejectionOf, startHarness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.server.close();
  h = undefined;
});

/** The harness of the running test. */
async function harness(kubernetesVersion?: string): Promise<Harness> {
  h = await startHarness(kubernetesVersion ? { kubernetesVersion } : {});
  return h;
}

describe('parseGitVersion', () => {
  it.each([
    ['v1.29.4-eks-036c24b', 1, 29],
    ['v1.28.3+k3s1', 1, 28],
    ['v1.30.5-gke.1014001', 1, 30],
    ['v1.25.0', 1, 25],
  ])('reads %s as %i.%i', (gitVersion, major, minor) => {
    expect(parseGitVersion(gitVersion)).toEqual({ major, minor, gitVersion });
  });

  it('reads nothing from a version that is not v<major>.<minor>.…', () => {
    expect(parseGitVersion('unknown')).toBeUndefined();
    expect(parseGitVersion('v1.2x')).toBeUndefined();
  });
});

describe('checkServerVersion', () => {
  it('accepts 1.25 and newer and returns the version', async () => {
    const { api } = await harness('v1.25.16-eks-8cb36c9');
    expect(await checkServerVersion(api)).toEqual({
      major: 1,
      minor: 25,
      gitVersion: 'v1.25.16-eks-8cb36c9',
    });
  });

  it('refuses an older cluster with a typed error naming its version and what podlift needs', async () => {
    const { api } = await harness('v1.24.17-eks-c12679a');
    const error = await rejectionOf(checkServerVersion(api));
    expect(isUnsupportedKubernetesVersionError(error)).toBe(true);
    expect(error.message).toBe(
      'checking the Kubernetes version: the API server runs v1.24.17-eks-c12679a; podlift needs Kubernetes 1.25 or newer (policy/v1 evictions and PodDisruptionBudgets, CEL validation in its CRDs)',
    );
  });
});

describe('KubeCluster.checkServerVersion', () => {
  const versionRequests = ({ server }: Harness) => server.requests.filter((r) => r.path === '/version');

  it('asks the server once while the answer is good', async () => {
    const started = await harness();
    await started.cluster.checkServerVersion();
    await started.cluster.checkServerVersion();
    expect(versionRequests(started)).toHaveLength(1);
  });

  it('asks again after a refusal, so an upgraded cluster is seen', async () => {
    const started = await harness('v1.24.17');
    expect(isUnsupportedKubernetesVersionError(await rejectionOf(started.cluster.checkServerVersion()))).toBe(
      true,
    );
    started.server.setKubernetesVersion('v1.25.0');
    expect(await started.cluster.checkServerVersion()).toMatchObject({ major: 1, minor: 25 });
    expect(versionRequests(started)).toHaveLength(2);
  });
});
