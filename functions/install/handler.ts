import { readFileSync } from 'node:fs';
import { EKSClient } from '@aws-sdk/client-eks';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { EksClusterAccess } from '../../shared/aws/eks/eks-cluster-access';
import { sdkClientConfig } from '../../shared/aws/sdk-client-config';
import { INSTALL_MANIFESTS_ASSET } from '../../shared/core/contracts/install';
import type { ManifestObject } from '../../shared/core/install/install-objects';
import { BearerTokenKubeConfigSource } from '../../shared/kube/auth/bearer-token-kubeconfig-source';
import { KubeClusterManifests } from '../../shared/kube/cluster-manifests';
import { systemClock } from '../../shared/runtime/system-time';
import { type InstallDeps, isInstallComplete, onInstallEvent } from './install';

/**
 * The installer's two Lambda entry points, wired to the Provider framework as its onEvent and
 * isComplete handlers (infra/parts/cluster-install.ts). It reaches the cluster as the other
 * functions do (DescribeCluster and an IAM token, shared/aws/eks) under its own role.
 */

let deps: InstallDeps | undefined;

/** Built on the first invocation and kept by the container. */
export function installDeps(clusterName: string): InstallDeps {
  if (deps) return deps;
  const eks = new EKSClient(sdkClientConfig({ region: process.env.AWS_REGION ?? '' }));
  const access = new EksClusterAccess({
    eks,
    clusterName,
    credentials: eks.config.credentials as AwsCredentialIdentityProvider,
    clock: systemClock,
  });
  const base = JSON.parse(
    readFileSync(new URL(`./${INSTALL_MANIFESTS_ASSET}`, import.meta.url), 'utf8'),
  ) as ManifestObject[];
  deps = {
    manifests: new KubeClusterManifests(new BearerTokenKubeConfigSource(access)),
    base,
    clusterExists: async () => {
      await access.clusterInfo();
    },
  };
  return deps;
}

function clusterOf(event: unknown): string {
  const props = (event as { ResourceProperties?: { ClusterName?: unknown } }).ResourceProperties;
  return typeof props?.ClusterName === 'string' ? props.ClusterName : '';
}

/** The Provider framework's onEvent handler. */
export const onEvent = (event: unknown) => onInstallEvent(event, installDeps(clusterOf(event)));

/** The Provider framework's isComplete handler. */
export const isComplete = (event: unknown) => isInstallComplete(event, installDeps(clusterOf(event)));
