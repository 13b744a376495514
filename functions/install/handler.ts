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
    clock: systemClock,
  };
  return deps;
}

function clusterOf(event: unknown): string {
  const props = (event as { ResourceProperties?: { ClusterName?: unknown } }).ResourceProperties;
  return typeof props?.ClusterName === 'string' ? props.ClusterName : '';
}

function requestTypeOf(event: unknown): unknown {
  return (event as { RequestType?: unknown }).RequestType;
}

/** The Provider framework's onEvent handler; one JSON log line says what it did. */
export async function onEvent(event: unknown) {
  const cluster = clusterOf(event);
  const response = await onInstallEvent(event, installDeps(cluster));
  console.info(
    JSON.stringify({ message: 'manifests', requestType: requestTypeOf(event), cluster, ...response.Data }),
  );
  return response;
}

/** The Provider framework's isComplete handler; one JSON log line per poll. */
export async function isComplete(event: unknown) {
  const cluster = clusterOf(event);
  const response = await isInstallComplete(event, installDeps(cluster));
  console.info(
    JSON.stringify({ message: 'rollout', requestType: requestTypeOf(event), cluster, ...response }),
  );
  return response;
}
