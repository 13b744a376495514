import type {
  AffinityManifest,
  ContainerManifest,
  PodManifest,
  TolerationManifest,
  TopologySpreadConstraintManifest,
} from '../../../shared/core/manifests/kube-objects';
import { nextName } from './names';
import type { QuantityInput } from './quantities';

/** Options of {@link containerManifest}. */
export interface ContainerManifestOptions {
  /** Default `app`. */
  readonly name?: string;
  readonly requests?: QuantityInput;
  readonly limits?: QuantityInput;
  /** `Always` on an init container makes it a sidecar. */
  readonly restartPolicy?: string;
}

/** A core/v1 Container manifest with the given resources (none by default). */
export function containerManifest(options: ContainerManifestOptions = {}): ContainerManifest {
  const resources = {
    ...(options.requests !== undefined ? { requests: options.requests } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
  };
  return {
    name: options.name ?? 'app',
    image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.9',
    ...(Object.keys(resources).length > 0 ? { resources } : {}),
    ...(options.restartPolicy !== undefined ? { restartPolicy: options.restartPolicy } : {}),
  };
}

/** Options of {@link podManifest}; every field is optional. */
export interface PodManifestOptions {
  /** Default `pod-N`. */
  readonly name?: string;
  /** Default `default`. */
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Shorthand for requests.cpu of the single default container. */
  readonly cpu?: string | number;
  /** Requests of the single default container; ignored when `containers` is given. */
  readonly requests?: QuantityInput;
  readonly containers?: readonly ContainerManifest[];
  readonly initContainers?: readonly ContainerManifest[];
  readonly overhead?: QuantityInput;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly affinity?: AffinityManifest;
  readonly tolerations?: readonly TolerationManifest[];
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraintManifest[];
  readonly nodeName?: string;
  readonly schedulerName?: string;
  readonly priority?: number;
  /** Kind of the controlling owner reference, e.g. `ReplicaSet`, `DaemonSet` or `Node`. */
  readonly ownerKind?: string;
  /** PersistentVolumeClaims the pod mounts, one volume each. */
  readonly claims?: readonly string[];
  /** Default `Running` when `ready`, else `Pending`. */
  readonly phase?: string;
  /** Adds Ready=True (healthy for disruption budgets); the phase defaults to `Running`. */
  readonly ready?: boolean;
  /** Adds the PodScheduled=False/Unschedulable condition kube-scheduler sets on a pod it cannot place. */
  readonly unschedulable?: boolean;
  readonly nominatedNodeName?: string;
  /** RFC 3339; set once deletion was requested. */
  readonly deletionTimestamp?: string;
}

/**
 * A core/v1 Pod manifest as the API would return it: one `app` container without requests,
 * Pending, no conditions. A pending pod the scheduler gave up on needs `unschedulable: true`.
 */
export function podManifest(options: PodManifestOptions = {}): PodManifest {
  const name = options.name ?? nextName('pod');
  const conditions = [
    ...(options.unschedulable ? [unschedulableCondition()] : []),
    ...(options.ready ? [{ type: 'Ready', status: 'True' }] : []),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      ...(options.uid !== undefined ? { uid: options.uid } : {}),
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      ...(options.deletionTimestamp !== undefined ? { deletionTimestamp: options.deletionTimestamp } : {}),
      ...(options.ownerKind !== undefined
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: options.ownerKind, name: `${name}-owner`, controller: true },
            ],
          }
        : {}),
    },
    spec: podSpec(options),
    status: {
      phase: options.phase ?? (options.ready ? 'Running' : 'Pending'),
      ...(conditions.length > 0 ? { conditions } : {}),
      ...(options.nominatedNodeName !== undefined ? { nominatedNodeName: options.nominatedNodeName } : {}),
    },
  };
}

/** The condition kube-scheduler sets on a pod it cannot place. */
export function unschedulableCondition(message = '0/3 nodes are available: 3 Insufficient cpu.') {
  return { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message };
}

function podSpec(options: PodManifestOptions): PodManifest['spec'] {
  const requests = options.cpu === undefined ? options.requests : { ...options.requests, cpu: options.cpu };
  return {
    containers: options.containers ?? [containerManifest({ requests })],
    ...(options.initContainers !== undefined ? { initContainers: options.initContainers } : {}),
    ...(options.overhead !== undefined ? { overhead: options.overhead } : {}),
    ...(options.nodeSelector !== undefined ? { nodeSelector: options.nodeSelector } : {}),
    ...(options.affinity !== undefined ? { affinity: options.affinity } : {}),
    ...(options.tolerations !== undefined ? { tolerations: options.tolerations } : {}),
    ...(options.topologySpreadConstraints !== undefined
      ? { topologySpreadConstraints: options.topologySpreadConstraints }
      : {}),
    ...(options.nodeName !== undefined ? { nodeName: options.nodeName } : {}),
    ...(options.schedulerName !== undefined ? { schedulerName: options.schedulerName } : {}),
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    ...(options.claims !== undefined
      ? {
          volumes: options.claims.map((claimName, i) => ({
            name: `v${i}`,
            persistentVolumeClaim: { claimName },
          })),
        }
      : {}),
  };
}
