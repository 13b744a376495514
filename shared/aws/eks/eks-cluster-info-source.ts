import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { NotFoundError, PodliftError } from '../../core/model/errors';
import type { Clock } from '../../core/ports/time';
import { cloudErrorFrom } from '../aws-error';
import { TtlCache } from '../ttl-cache';
import { clusterInfoFromEks } from './eks-cluster-info';

/** Options of {@link EksClusterInfoSource}. */
export interface EksClusterInfoSourceOptions {
  /** The EKS client of the cluster's region (the Lambda's). */
  readonly eks: EKSClient;
  readonly clusterName: string;
  readonly clock: Clock;
  /**
   * How long a DescribeCluster answer is reused. The endpoint and CA practically never change;
   * the version changes on upgrades, which this bounds how late podlift notices.
   * @default 300_000 (5 minutes)
   */
  readonly ttlMs?: number;
  /**
   * Where answers are kept.
   * @default one cache per module, shared by every source in the Lambda instance
   */
  readonly cache?: TtlCache<ClusterInfo>;
}

/** The module-scope cache: warm invocations of a Lambda reuse the last DescribeCluster answer. */
const moduleCache = new TtlCache<ClusterInfo>();

/** Forgets every cached DescribeCluster answer of the module-scope cache (tests, forced refresh). */
export function clearEksClusterInfoCache(): void {
  moduleCache.clear();
}

/**
 * Core's {@link ClusterInfo} of an EKS cluster from DescribeCluster: endpoint, CA, Kubernetes
 * version, service CIDR and IP family, and the cluster DNS address (10th address of the service
 * CIDR). Answers are cached per region and cluster for `ttlMs` of the injected clock.
 */
export class EksClusterInfoSource {
  private readonly ttlMs: number;
  private readonly cache: TtlCache<ClusterInfo>;

  constructor(private readonly options: EksClusterInfoSourceOptions) {
    this.ttlMs = options.ttlMs ?? 300_000;
    this.cache = options.cache ?? moduleCache;
  }

  /**
   * The cluster's info, from the cache while it is fresh.
   * @throws NotFoundError when EKS has no cluster of that name in the region.
   * @throws CloudError when the cluster is not ACTIVE (or UPDATING) or the call fails.
   */
  async get(): Promise<ClusterInfo> {
    const region = await this.options.eks.config.region();
    const key = `${region}/${this.options.clusterName}`;
    return this.cache.getOrLoad(key, this.options.clock.now(), this.ttlMs, () => this.describe(region));
  }

  private async describe(region: string): Promise<ClusterInfo> {
    const name = this.options.clusterName;
    const doing = `describing EKS cluster ${name} in ${region}`;
    try {
      const out = await this.options.eks.send(new DescribeClusterCommand({ name }));
      if (out.cluster === undefined) throw cloudErrorFrom(doing, new Error('no cluster in the response'));
      return clusterInfoFromEks(out.cluster, doing);
    } catch (error) {
      if (error instanceof PodliftError) throw error;
      if ((error as { name?: string }).name === 'ResourceNotFoundException') {
        throw new NotFoundError(
          `EKS cluster ${name}`,
          `${doing}: no cluster named ${name} (ResourceNotFoundException)`,
          { cause: error },
        );
      }
      throw cloudErrorFrom(doing, error);
    }
  }
}
