/** What podlift knows about the cluster it serves (from EKS DescribeCluster, or configuration for kOps). */
export interface ClusterInfo {
  readonly name: string;
  /** https://… API server endpoint. */
  readonly endpoint: string;
  /** Base64 PEM of the cluster CA. */
  readonly certificateAuthority: string;
  /** e.g. "1.31". */
  readonly kubernetesVersion: string;
  /** Service CIDR (IPv4 or IPv6). */
  readonly serviceCidr: string;
  readonly ipFamily: 'ipv4' | 'ipv6';
  /** The cluster DNS IP (10th address of the service CIDR unless configured). */
  readonly clusterDns?: string;
}
