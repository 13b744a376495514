import { createHash } from 'node:crypto';
import {
  type Cluster,
  type ClusterStatus,
  type DescribeClusterCommandInput,
  type DescribeClusterCommandOutput,
  EKSServiceException,
  InvalidParameterException,
  ResourceNotFoundException,
  ServerException,
  ServiceUnavailableException,
} from '@aws-sdk/client-eks';
import type { Clock } from '../../../shared/core/ports/time';
import { FakeAwsService, type OperationOutput } from './fake-service';
import type { AuthorizationRequest } from './iam-policy/evaluate';
import { type ModeledExceptionClass, ServiceErrorFactory } from './service-error';

/** A cluster to seed. Everything but the name has a realistic default. */
export interface EksClusterSeed {
  readonly name: string;
  /** @default `https://<32 hex>.gr7.<region>.eks.amazonaws.com`, derived from the name */
  readonly endpoint?: string;
  /** Base64 PEM. @default a fixed fake CA */
  readonly certificateAuthority?: string;
  /** @default '1.31' */
  readonly version?: string;
  /** @default 'ACTIVE' */
  readonly status?: ClusterStatus;
  /** @default 'ipv4' */
  readonly ipFamily?: 'ipv4' | 'ipv6';
  /** @default '10.100.0.0/16' for ipv4 clusters, none for ipv6 */
  readonly serviceIpv4Cidr?: string;
  /** @default 'fd30:1c53:5f8a::/108' for ipv6 clusters, none for ipv4 */
  readonly serviceIpv6Cidr?: string;
}

/** Options of `FakeEks`. */
export interface FakeEksOptions {
  readonly clock: Clock;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '123456789012' */
  readonly accountId?: string;
  readonly clusters?: readonly EksClusterSeed[];
}

const modeled = (type: unknown) => type as ModeledExceptionClass;

const MODELED: Readonly<Record<string, ModeledExceptionClass>> = {
  ResourceNotFoundException: modeled(ResourceNotFoundException),
  InvalidParameterException: modeled(InvalidParameterException),
  ServerException: modeled(ServerException),
  ServiceUnavailableException: modeled(ServiceUnavailableException),
};

/** A base64 PEM that looks like a CA bundle; nothing verifies it. */
export const FAKE_EKS_CA = Buffer.from(
  '-----BEGIN CERTIFICATE-----\nMIIFAKEpodliftFAKEeksCAfakeCERTIFICATEdata\n-----END CERTIFICATE-----\n',
).toString('base64');

/**
 * EKS DescribeCluster over seeded clusters, shaped like the real answer: endpoint, CA,
 * version, status, `kubernetesNetworkConfig` (serviceIpv4Cidr or serviceIpv6Cidr, ipFamily).
 * Unknown names get ResourceNotFoundException; a CREATING cluster has no endpoint or CA yet,
 * as in EKS.
 */
export class FakeEks extends FakeAwsService {
  readonly clientName = 'EKSClient';
  readonly region: string;
  readonly accountId: string;

  protected readonly throttlingErrorName = 'ThrottlingException';
  protected readonly errors = new ServiceErrorFactory(EKSServiceException, MODELED, {
    ThrottlingException: { fault: 'client', httpStatusCode: 429 },
    ServerException: { fault: 'server', httpStatusCode: 500 },
    ServiceUnavailableException: { fault: 'server', httpStatusCode: 503 },
    ResourceNotFoundException: { fault: 'client', httpStatusCode: 404 },
  });
  protected readonly operations = { DescribeCluster: this.describeCluster };

  private readonly clusters = new Map<string, Cluster>();

  constructor(options: FakeEksOptions) {
    super(options.clock);
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '123456789012';
    for (const seed of options.clusters ?? []) this.seedCluster(seed);
  }

  /** eks:DescribeCluster on the cluster's ARN. */
  protected override authorizationRequests(operation: string, input: object): AuthorizationRequest[] {
    const name = (input as { name?: string }).name ?? '';
    return [
      {
        action: `eks:${operation}`,
        resource: `arn:aws:eks:${this.region}:${this.accountId}:cluster/${name}`,
        context: {},
      },
    ];
  }

  protected override requestedRegion(): string {
    return this.region;
  }

  /** Adds (or replaces) a cluster; not logged. */
  seedCluster(seed: EksClusterSeed): void {
    const ipFamily = seed.ipFamily ?? 'ipv4';
    const hash = createHash('sha256').update(`${this.accountId}/${seed.name}`).digest('hex');
    this.clusters.set(seed.name, {
      name: seed.name,
      arn: `arn:aws:eks:${this.region}:${this.accountId}:cluster/${seed.name}`,
      createdAt: new Date(this.clock.now()),
      version: seed.version ?? '1.31',
      endpoint:
        seed.endpoint ?? `https://${hash.slice(0, 32).toUpperCase()}.gr7.${this.region}.eks.amazonaws.com`,
      roleArn: `arn:aws:iam::${this.accountId}:role/${seed.name}-cluster`,
      kubernetesNetworkConfig: {
        serviceIpv4Cidr: seed.serviceIpv4Cidr ?? (ipFamily === 'ipv4' ? '10.100.0.0/16' : undefined),
        serviceIpv6Cidr: seed.serviceIpv6Cidr ?? (ipFamily === 'ipv6' ? 'fd30:1c53:5f8a::/108' : undefined),
        ipFamily,
      },
      status: seed.status ?? 'ACTIVE',
      certificateAuthority: { data: seed.certificateAuthority ?? FAKE_EKS_CA },
      platformVersion: 'eks.1',
      tags: {},
    });
  }

  /** Moves a cluster to another status (an upgrade: UPDATING, a deletion: DELETING, ...). */
  setClusterStatus(name: string, status: ClusterStatus): void {
    const cluster = this.clusters.get(name);
    if (cluster === undefined) throw new Error(`FakeEks has no cluster ${name}`);
    cluster.status = status;
  }

  /** Changes a cluster's Kubernetes version, as an upgrade does. */
  setClusterVersion(name: string, version: string): void {
    const cluster = this.clusters.get(name);
    if (cluster === undefined) throw new Error(`FakeEks has no cluster ${name}`);
    cluster.version = version;
  }

  /** Forgets a cluster, as a finished deletion does. */
  removeCluster(name: string): void {
    this.clusters.delete(name);
  }

  describeCluster(input: DescribeClusterCommandInput): OperationOutput<DescribeClusterCommandOutput> {
    const name = input.name ?? '';
    if (name === '') throw this.fail('InvalidParameterException', 'Cluster name must not be empty.');
    const cluster = this.clusters.get(name);
    if (cluster === undefined)
      throw this.fail('ResourceNotFoundException', `No cluster found for name: ${name}.`);
    if (cluster.status === 'CREATING') {
      const { endpoint: _endpoint, ...creating } = cluster;
      return { cluster: { ...creating, certificateAuthority: {} } };
    }
    return { cluster };
  }
}
