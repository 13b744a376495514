import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { NotFoundError, PodliftError, ValidationError } from '../../core/model/errors';
import type { ClusterAccess } from '../../core/ports/cluster-access';
import type { Clock } from '../../core/ports/time';
import { cloudErrorFrom } from '../aws-error';
import { TtlCache } from '../ttl-cache';
import { type KopsClusterAccessData, parseKopsClusterParameter } from './kops-cluster-parameter';

/** Options of {@link KopsClusterAccess}. */
export interface KopsClusterAccessOptions {
  readonly ssm: SSMClient;
  readonly clusterName: string;
  /**
   * The SecureString parameter holding the cluster's access JSON.
   * @default `/podlift/<clusterName>/cluster`
   */
  readonly parameterName?: string;
  readonly clock: Clock;
  /**
   * How long a read of the parameter is reused; a rotated token is picked up after at most this.
   * @default 300_000 (5 minutes)
   */
  readonly ttlMs?: number;
  /** @default one cache per module, shared by every KopsClusterAccess in the Lambda instance */
  readonly cache?: TtlCache<KopsClusterAccessData>;
}

/** A service-account token: it does not expire on a schedule, so no `expiresAt`. */
export interface StaticBearerToken {
  readonly token: string;
}

const moduleCache = new TtlCache<KopsClusterAccessData>();

/** Forgets every cached parameter read of the module-scope cache (tests, forced refresh). */
export function clearKopsClusterAccessCache(): void {
  moduleCache.clear();
}

/**
 * Core's {@link ClusterAccess} port for a non-EKS (kOps) cluster: endpoint, CA, version,
 * service CIDR and a service-account token, from one SSM SecureString parameter (see
 * `KopsClusterParameterSchema`), cached for `ttlMs`.
 */
export class KopsClusterAccess implements ClusterAccess {
  /** The parameter read. */
  readonly parameterName: string;
  private readonly ttlMs: number;
  private readonly cache: TtlCache<KopsClusterAccessData>;

  constructor(private readonly options: KopsClusterAccessOptions) {
    this.parameterName = options.parameterName ?? `/podlift/${options.clusterName}/cluster`;
    this.ttlMs = options.ttlMs ?? 300_000;
    this.cache = options.cache ?? moduleCache;
  }

  /** The cluster's info from the parameter. */
  async clusterInfo(): Promise<ClusterInfo> {
    return (await this.read()).info;
  }

  /** The service-account token from the parameter. */
  async bearerToken(): Promise<StaticBearerToken> {
    return { token: (await this.read()).token };
  }

  private read(): Promise<KopsClusterAccessData> {
    const key = `${this.parameterName}#${this.options.clusterName}`;
    return this.cache.getOrLoad(key, this.options.clock.now(), this.ttlMs, () => this.load());
  }

  private async load(): Promise<KopsClusterAccessData> {
    const name = this.parameterName;
    const doing = `reading the access of cluster ${this.options.clusterName} from SSM parameter ${name}`;
    try {
      const out = await this.options.ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
      const parameter = out.Parameter;
      if (parameter?.Type !== 'SecureString') {
        throw new ValidationError(
          [
            {
              field: 'Type',
              value: parameter?.Type,
              message: 'must be SecureString: the value holds a token',
            },
          ],
          { source: `SSM parameter ${name}` },
        );
      }
      return parseKopsClusterParameter(parameter.Value ?? '', name, this.options.clusterName);
    } catch (error) {
      if (error instanceof PodliftError) throw error;
      if ((error as { name?: string }).name === 'ParameterNotFound') {
        throw new NotFoundError(`SSM parameter ${name}`, `${doing}: no such parameter (ParameterNotFound)`, {
          cause: error,
        });
      }
      throw cloudErrorFrom(doing, error);
    }
  }
}
