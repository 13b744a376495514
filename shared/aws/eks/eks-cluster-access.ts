import type { EKSClient } from '@aws-sdk/client-eks';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { ClusterInfo } from '../../core/model/cluster-info';
import type { ClusterAccess } from '../../core/ports/cluster-access';
import type { Clock } from '../../core/ports/time';
import type { TtlCache } from '../ttl-cache';
import { EksClusterInfoSource } from './eks-cluster-info-source';
import { type EksBearerToken, EksTokenSource } from './eks-token-source';

/** Options of {@link EksClusterAccess}. */
export interface EksClusterAccessOptions {
  /** The EKS client of the cluster's region; its region is also the token's STS region. */
  readonly eks: EKSClient;
  readonly clusterName: string;
  /** The Lambda's credentials, e.g. `eks.config.credentials`. */
  readonly credentials: AwsCredentialIdentityProvider;
  readonly clock: Clock;
  /**
   * How long a DescribeCluster answer is reused.
   * @default 300_000 (5 minutes)
   */
  readonly ttlMs?: number;
  /** @default the module-scope cache of {@link EksClusterInfoSource} */
  readonly cache?: TtlCache<ClusterInfo>;
}

/**
 * Core's {@link ClusterAccess} port for an EKS cluster: {@link ClusterInfo} from
 * DescribeCluster and an IAM bearer token refreshed every 14 minutes, so
 * `new BearerTokenKubeConfigSource(new EksClusterAccess(…))` is the EKS KubeConfigSource.
 */
export class EksClusterAccess implements ClusterAccess {
  private readonly info: EksClusterInfoSource;
  private tokens: EksTokenSource | undefined;

  constructor(private readonly options: EksClusterAccessOptions) {
    this.info = new EksClusterInfoSource(options);
  }

  /** The cluster's endpoint, CA, version and network (cached for `ttlMs`). */
  clusterInfo(): Promise<ClusterInfo> {
    return this.info.get();
  }

  /** A token valid now (the same one until it is 14 minutes old). */
  async bearerToken(): Promise<EksBearerToken> {
    if (this.tokens === undefined) {
      const region = await this.options.eks.config.region();
      this.tokens ??= new EksTokenSource({ ...this.options, region });
    }
    return this.tokens.get();
  }
}
