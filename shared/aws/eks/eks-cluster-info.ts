import type { Cluster } from '@aws-sdk/client-eks';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { CloudError } from '../../core/model/errors';
import { clusterDnsAddress } from './cluster-dns';

/**
 * Statuses in which the API server serves and DescribeCluster carries endpoint, CA and version.
 * UPDATING is one of them: EKS keeps the control plane available during version and config
 * updates, and refusing it would stop provisioning for the length of every upgrade.
 */
const SERVING = new Set(['ACTIVE', 'UPDATING']);

/** Statuses that pass by themselves; the others (DELETING, FAILED) do not. */
const TRANSIENT = new Set(['CREATING', 'PENDING']);

/**
 * Maps a DescribeCluster `cluster` to core's {@link ClusterInfo}: the service CIDR of the
 * cluster's IP family and the cluster DNS address derived from it.
 * @throws CloudError when the cluster does not serve yet (CREATING, PENDING: retryable) or any
 * more (DELETING, FAILED), or when EKS left out a field an ACTIVE cluster always has.
 */
export function clusterInfoFromEks(cluster: Cluster, where: string): ClusterInfo {
  const status = cluster.status ?? 'UNKNOWN';
  if (!SERVING.has(status)) {
    return fail(
      `${where}: cluster status is ${status}, not ACTIVE`,
      `ClusterStatus.${status}`,
      TRANSIENT.has(status),
    );
  }
  const network = cluster.kubernetesNetworkConfig;
  const ipFamily = network?.ipFamily ?? 'ipv4';
  const serviceCidr = ipFamily === 'ipv6' ? network?.serviceIpv6Cidr : network?.serviceIpv4Cidr;
  const endpoint = required(cluster.endpoint, 'endpoint', where);
  const certificateAuthority = required(
    cluster.certificateAuthority?.data,
    'certificateAuthority.data',
    where,
  );
  const kubernetesVersion = required(cluster.version, 'version', where);
  const cidr = required(
    serviceCidr,
    `kubernetesNetworkConfig.service${ipFamily === 'ipv6' ? 'Ipv6' : 'Ipv4'}Cidr`,
    where,
  );
  return {
    name: required(cluster.name, 'name', where),
    endpoint,
    certificateAuthority,
    kubernetesVersion,
    serviceCidr: cidr,
    ipFamily,
    clusterDns: clusterDnsAddress(cidr),
  };
}

function required(value: string | undefined, field: string, where: string): string {
  if (value === undefined || value === '') {
    return fail(`${where}: DescribeCluster returned no ${field}`, 'IncompleteResponse', true);
  }
  return value;
}

function fail(message: string, code: string, retryable: boolean): never {
  throw new CloudError(message, code, retryable);
}
