import { parseEC2NodeClass } from '../../shared/core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';
import { DRIFT_HASH_VERSION, nodeClassHash, nodePoolHash } from '../../shared/core/model/drift-hash';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { ResourceRef } from '../../sim/fakes/kube/store';
import { AMI_AMD64 } from '../../sim/world/aws/region';
import {
  ec2NodeClassManifest,
  nodeClaimManifest,
  nodeManifest,
  nodePoolManifest,
  podManifest,
} from '../../sim/world/builders';

/** The shape of a steady cluster the state-load bench reads. */
export interface ClusterShape {
  readonly nodes: number;
  /** Running pods per node (bound, Ready, owned by a ReplicaSet). */
  readonly podsPerNode: number;
  /** Pods kube-scheduler gave up on. */
  readonly pendingPods: number;
  /**
   * Consolidation's worst case: nodes so full (16 pods each, 7.4 of 7.91 CPU) that no node's pods
   * fit elsewhere or on one cheaper node, except those of the node consolidation looks at last
   * (the 100th, `SIMULATED_LAST`): multi-node's binary search fails at every size and single-node
   * simulates 100 candidates before it finds one to delete. Without it, 10 pods a node leave
   * every node about 58 % used, and multi-node deletes 100 nodes at once.
   */
  readonly packed?: boolean;
}

/**
 * The node consolidation simulates last when the cluster is packed: candidates are taken fewest
 * pods first, then dearest first (decide.ts), so the 99 nodes before it are priced higher and the
 * rest lower, and its pods are small enough to fit in what the others leave free.
 */
export const SIMULATED_LAST = 99;
/**
 * Its pods: little CPU, so they fit in the 0.51 CPU each other node leaves free, and memory
 * enough (16 × 1900Mi of 30Gi) that it cannot take in the 1-CPU pods of the others either.
 */
const LAST_POD_REQUESTS = { cpu: '100m', memory: '1900Mi' };
const PACKED_PRICES = { before: '0.40', last: '0.39', after: '0.384' };

/**
 * When the nodes came up and last saw a pod event: before the bench's clock starts
 * (sim/world starts it at 2026-01-01), so every node is past any consolidateAfter.
 */
const INITIALIZED = '2025-12-01T00:00:00Z';
/** The last pod event of every node (bench/state-load/server.ts `settle`). */
export const LAST_POD_EVENT = '2025-12-31T00:00:00Z';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const CPU = ['100m', '250m', '500m', '1'];
const MEMORY = ['128Mi', '256Mi', '512Mi', '1Gi'];

/**
 * Every object of a cluster of `shape`, in the order an API server would have them created:
 * one NodePool and EC2NodeClass, then per node its NodeClaim (launched, registered), the Node
 * (m5.2xlarge, Ready, joined by providerID) and its running pods; then the pending pods.
 */
export function* clusterObjects(shape: ClusterShape): Generator<[ResourceRef, object]> {
  const nodePool = nodePoolManifest({ limits: { cpu: '100000' } });
  const nodeClass = ec2NodeClassManifest();
  yield ['nodepools.karpenter.sh', nodePool];
  yield ['ec2nodeclasses.karpenter.k8s.aws', nodeClass];
  // Every node was launched from the NodePool and EC2NodeClass as they are now, on the image the
  // EC2NodeClass resolves to, so none has drifted: the disruption run goes past drift to
  // consolidation, the method whose cost grows with the cluster.
  const launchedFrom = {
    [ANNOTATIONS.nodePoolHash]: nodePoolHash(parseNodePool(nodePool)),
    [ANNOTATIONS.nodePoolHashVersion]: DRIFT_HASH_VERSION,
    [ANNOTATIONS.nodeClassHash]: nodeClassHash(parseEC2NodeClass(nodeClass)),
    [ANNOTATIONS.nodeClassHashVersion]: DRIFT_HASH_VERSION,
  };
  const priceOf = (n: number) =>
    !shape.packed
      ? '0.384'
      : n < SIMULATED_LAST
        ? PACKED_PRICES.before
        : n === SIMULATED_LAST
          ? PACKED_PRICES.last
          : PACKED_PRICES.after;
  for (let n = 0; n < shape.nodes; n++) {
    const name = `node-${n}`;
    const zone = ZONES[n % ZONES.length];
    const providerID = `aws:///${zone}/i-${n.toString(16).padStart(17, '0')}`;
    const labels = {
      'karpenter.sh/nodepool': 'default',
      'karpenter.sh/registered': 'true',
      'karpenter.sh/initialized': 'true',
      'node.kubernetes.io/instance-type': 'm5.2xlarge',
      'topology.kubernetes.io/zone': zone,
      'karpenter.sh/capacity-type': 'spot',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
    };
    const claim = nodeClaimManifest({ name: `default-${n}` });
    yield [
      'nodeclaims.karpenter.sh',
      {
        ...claim,
        metadata: {
          ...claim.metadata,
          labels,
          annotations: { ...launchedFrom, [ANNOTATIONS.hourlyPrice]: priceOf(n) },
          finalizers: ['karpenter.sh/termination'],
        },
        status: {
          providerID,
          nodeName: name,
          imageID: AMI_AMD64,
          capacity: { cpu: '8', memory: '32Gi', pods: '58' },
          allocatable: { cpu: '7910m', memory: '30Gi', pods: '58' },
          conditions: ['Launched', 'Registered', 'Initialized', 'Ready'].map((type) => ({
            type,
            status: 'True',
            reason: type,
            message: '',
            lastTransitionTime: INITIALIZED,
          })),
        },
      },
    ];
    const node = nodeManifest({
      name,
      labels,
      ready: true,
      allocatable: { cpu: '7910m', memory: '30Gi', pods: '58' },
    });
    yield ['nodes', { ...node, spec: { ...node.spec, providerID } }];
    for (let p = 0; p < shape.podsPerNode; p++) {
      const i = n * shape.podsPerNode + p;
      yield [
        'pods',
        podManifest({
          name: `app-${i}`,
          namespace: `team-${i % 20}`,
          labels: { app: `app-${i % 200}` },
          requests:
            shape.packed && n === SIMULATED_LAST
              ? LAST_POD_REQUESTS
              : { cpu: CPU[i % CPU.length], memory: MEMORY[(i >> 2) % MEMORY.length] },
          nodeName: name,
          ready: true,
          ownerKind: 'ReplicaSet',
        }),
      ];
    }
  }
  for (let i = 0; i < shape.pendingPods; i++) {
    yield [
      'pods',
      podManifest({ name: `pending-${i}`, requests: { cpu: '500m', memory: '512Mi' }, unschedulable: true }),
    ];
  }
}
