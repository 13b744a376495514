import type { ClusterInfo } from '../model/cluster-info';

/** A bearer token for the Kubernetes API. */
export interface BearerToken {
  readonly token: string;
  /** When the API server stops accepting it (ms since the epoch); absent for tokens without a schedule. */
  readonly expiresAt?: number;
}

/**
 * The port a cluster's credentials come through: where the API server is (endpoint, CA) and a
 * bearer token that is valid now. shared/aws implements it for EKS (DescribeCluster + IAM
 * token) and kOps (an SSM parameter); sources cache and refresh, so both calls are cheap.
 */
export interface ClusterAccess {
  clusterInfo(): Promise<ClusterInfo>;
  bearerToken(): Promise<BearerToken>;
}
