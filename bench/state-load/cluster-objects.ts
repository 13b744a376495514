import type { ResourceRef } from '../../sim/fakes/kube/store';
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
}

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const CPU = ['100m', '250m', '500m', '1'];
const MEMORY = ['128Mi', '256Mi', '512Mi', '1Gi'];

/**
 * Every object of a cluster of `shape`, in the order an API server would have them created:
 * one NodePool and EC2NodeClass, then per node its NodeClaim (launched, registered), the Node
 * (m5.2xlarge, Ready, joined by providerID) and its running pods; then the pending pods.
 */
export function* clusterObjects(shape: ClusterShape): Generator<[ResourceRef, object]> {
  yield ['nodepools.karpenter.sh', nodePoolManifest({ limits: { cpu: '100000' } })];
  yield ['ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest()];
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
          annotations: { 'podlift.dev/hourly-price': '0.384' },
          finalizers: ['karpenter.sh/termination'],
        },
        status: {
          providerID,
          nodeName: name,
          imageID: 'ami-0123456789abcdef0',
          capacity: { cpu: '8', memory: '32Gi', pods: '58' },
          allocatable: { cpu: '7910m', memory: '30Gi', pods: '58' },
          conditions: ['Launched', 'Registered', 'Initialized', 'Ready'].map((type) => ({
            type,
            status: 'True',
            reason: type,
            message: '',
            lastTransitionTime: '2026-11-01T00:00:00Z',
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
          requests: { cpu: CPU[i % CPU.length], memory: MEMORY[(i >> 2) % MEMORY.length] },
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
