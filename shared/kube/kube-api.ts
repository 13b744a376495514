import type { ApiConstructor, ApiType, KubeConfig } from '@kubernetes/client-node';
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  PolicyV1Api,
  StorageV1Api,
  setHeaderOptions,
  VersionApi,
} from '@kubernetes/client-node';
import type { KubeConfigSource } from './kubeconfig-source';

/**
 * The typed client-node API clients the adapter uses, built from the current KubeConfig of a
 * {@link KubeConfigSource} on every call (an EKS token expires after 15 minutes; the source
 * decides when to hand out a new config) and cached per config.
 */
export class KubeApi {
  private readonly cache = new WeakMap<KubeConfig, Map<ApiConstructor<ApiType>, ApiType>>();

  constructor(private readonly source: KubeConfigSource) {}

  /** core/v1: pods, nodes, events, persistent volumes and claims. */
  core(): Promise<CoreV1Api> {
    return this.client(CoreV1Api);
  }

  /** apps/v1: DaemonSets. */
  apps(): Promise<AppsV1Api> {
    return this.client(AppsV1Api);
  }

  /** policy/v1: PodDisruptionBudgets. */
  policy(): Promise<PolicyV1Api> {
    return this.client(PolicyV1Api);
  }

  /** storage.k8s.io/v1: VolumeAttachments. */
  storage(): Promise<StorageV1Api> {
    return this.client(StorageV1Api);
  }

  /** coordination.k8s.io/v1: Leases. */
  coordination(): Promise<CoordinationV1Api> {
    return this.client(CoordinationV1Api);
  }

  /** NodePools, NodeClaims, EC2NodeClasses. */
  custom(): Promise<CustomObjectsApi> {
    return this.client(CustomObjectsApi);
  }

  /** The current KubeConfig, for requests the typed clients do not make (json-list.ts). */
  config(): Promise<KubeConfig> {
    return this.source.get();
  }

  /** `GET /version`. */
  version(): Promise<VersionApi> {
    return this.client(VersionApi);
  }

  private async client<T extends ApiType>(type: ApiConstructor<T>): Promise<T> {
    const config = await this.source.get();
    let clients = this.cache.get(config);
    if (!clients) {
      clients = new Map();
      this.cache.set(config, clients);
    }
    let client = clients.get(type);
    if (!client) {
      client = config.makeApiClient(type);
      clients.set(type, client);
    }
    return client as T;
  }
}

/**
 * Request options that make client-node send `application/merge-patch+json` (RFC 7386).
 * Without them its patch methods send `application/json-patch+json`.
 */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** NodePools, as CustomObjectsApi addresses them (served by podlift's CRD). */
export const NODEPOOLS = { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', crd: true } as const;
/** NodeClaims, as CustomObjectsApi addresses them (served by podlift's CRD). */
export const NODECLAIMS = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', crd: true } as const;
/** EC2NodeClasses, as CustomObjectsApi addresses them (served by podlift's CRD). */
export const EC2NODECLASSES = {
  group: 'karpenter.k8s.aws',
  version: 'v1',
  plural: 'ec2nodeclasses',
  crd: true,
} as const;
