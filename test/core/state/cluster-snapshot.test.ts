import { describe, expect, it } from 'vitest';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../../../shared/core/model/labels';
import {
  inFlightNode,
  joinNodesAndClaims,
  schedulingCapacity,
} from '../../../shared/core/state/cluster-snapshot';
import type { DaemonSet } from '../../../shared/core/state/cluster-state';
import { nodeClaim, pod, resources, stateNode } from '../../../sim/world/builders';

const launched = (name: string, instance: string, extra: Parameters<typeof nodeClaim>[0] = {}) =>
  nodeClaim({
    name,
    zones: ['us-east-1a'],
    capacityTypes: ['spot'],
    requirements: [{ key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['m5.large', 'm5.xlarge'] }],
    status: {
      providerID: `aws:///us-east-1a/${instance}`,
      allocatable: resources({ cpu: '1930m', memory: '7Gi', pods: 29 }),
    },
    ...extra,
  });

const logging: DaemonSet = {
  namespace: 'kube-system',
  name: 'logging',
  pod: pod({ cpu: '100m', memory: '128Mi' }),
};

describe('joinNodesAndClaims', () => {
  it('pairs a Node with the NodeClaim of its providerID, and keeps the unpaired on each side', () => {
    const registered = launched('default-a', 'i-0000000000000000a');
    const inFlight = launched('default-b', 'i-0000000000000000b');
    const node = stateNode({
      name: 'ip-a',
      lifecycle: { providerID: 'aws:///us-east-1a/i-0000000000000000a' },
    });
    const stranger = stateNode({
      name: 'ip-z',
      lifecycle: { providerID: 'aws:///us-east-1a/i-000000000000000ff' },
    });

    const joined = joinNodesAndClaims([node, stranger], [registered, inFlight]);

    expect(joined).toEqual([{ node, nodeClaim: registered }, { nodeClaim: inFlight }, { node: stranger }]);
  });
});

describe('schedulingCapacity', () => {
  it('adds the NodeClaims not registered and not being deleted to the Nodes, launched or not', () => {
    const node = stateNode({
      name: 'ip-a',
      lifecycle: { providerID: 'aws:///us-east-1a/i-0000000000000000a' },
    });
    const registered = launched('default-a', 'i-0000000000000000a');
    const inFlight = launched('default-b', 'i-0000000000000000b');
    const deleting = launched('default-c', 'i-0000000000000000c', {
      deletionTimestamp: '2026-01-01T00:00:00Z',
    });
    const unlaunched = nodeClaim({ name: 'default-d' });
    const unlaunchedDeleting = nodeClaim({ name: 'default-e', deletionTimestamp: '2026-01-01T00:00:00Z' });

    const capacity = schedulingCapacity({
      nodes: [node],
      nodeClaims: [registered, inFlight, deleting, unlaunched, unlaunchedDeleting],
      daemonSets: [],
    });

    expect(capacity.map((n) => [n.kind, n.name])).toEqual([
      ['node', 'ip-a'],
      ['nodeclaim', 'default-b'],
      ['nodeclaim', 'default-d'],
    ]);
  });

  it('leaves out a NodeClaim of no NodePool whose launch is not recorded: nothing to count it against', () => {
    const foreign = nodeClaim({ name: 'foreign' });
    const unowned = { ...foreign, labels: { team: 'a' } };
    expect(schedulingCapacity({ nodes: [], nodeClaims: [unowned], daemonSets: [] })).toEqual([]);
  });
});

describe('schedulingCapacity of a NodeClaim whose launch is not recorded', () => {
  // Created and then throttled, or launched with the record failing: podlift's stand-in for
  // Karpenter's wait on cluster.go `Synced` (no scheduling while a NodeClaim has no providerID).
  const requests = resources({ cpu: '2100m', memory: '2Gi', pods: 3 });
  const options = [{ key: LABEL_INSTANCE_TYPE, operator: 'In' as const, values: ['m5.large', 'm5.2xlarge'] }];

  it('is in flight with its requests as allocatable and its requirements to size its limits by', () => {
    const claim = nodeClaim({ name: 'default-d', zones: ['us-east-1b'], requirements: options, requests });
    const [node] = schedulingCapacity({ nodes: [], nodeClaims: [claim], daemonSets: [logging] });
    expect(node).toMatchObject({
      kind: 'nodeclaim',
      name: 'default-d',
      nodePool: 'default',
      allocatable: requests,
      launchRequirements: claim.spec.requirements,
    });
    expect(node.labels[LABEL_ZONE]).toBe('us-east-1b');
    expect(node.capacity).toBeUndefined();
    expect(node.providerID).toBeUndefined();
    // The DaemonSet pods its requests include run on it, so the room left is its pods'.
    expect(node.pods.map((p) => p.name)).toEqual(['logging-default-d']);
  });

  it('is sized the same when it has a providerID but no allocatable recorded and no Node yet', () => {
    const claim = nodeClaim({
      name: 'default-f',
      requirements: options,
      requests,
      status: { providerID: 'aws:///us-east-1a/i-0000000000000000f' },
    });
    const [node] = schedulingCapacity({ nodes: [], nodeClaims: [claim], daemonSets: [] });
    expect(node).toMatchObject({
      allocatable: requests,
      launchRequirements: claim.spec.requirements,
      providerID: 'aws:///us-east-1a/i-0000000000000000f',
    });
  });

  it('is not counted twice once its Node registered', () => {
    const claim = nodeClaim({
      name: 'default-f',
      requests,
      status: { providerID: 'aws:///us-east-1a/i-0000000000000000f' },
    });
    const node = stateNode({
      name: 'ip-f',
      lifecycle: { providerID: 'aws:///us-east-1a/i-0000000000000000f' },
    });
    const capacity = schedulingCapacity({ nodes: [node], nodeClaims: [claim], daemonSets: [] });
    expect(capacity.map((n) => n.name)).toEqual(['ip-f']);
    expect(capacity[0].launchRequirements).toBeUndefined();
  });

  it('loses its spec sizing once its launch is recorded', () => {
    const node = inFlightNode(launched('default-b', 'i-0000000000000000b', { requests }), []);
    expect(node.allocatable).toEqual(resources({ cpu: '1930m', memory: '7Gi', pods: 29 }));
    expect(node.launchRequirements).toBeUndefined();
  });
});

describe('schedulingCapacity of a Node that joined but is not initialized', () => {
  const startup = { key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' as const };
  const joining = stateNode({
    name: 'ip-a',
    taints: [
      { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
      startup,
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ],
    lifecycle: { providerID: 'aws:///us-east-1a/i-0000000000000000a' },
  });

  it('trusts its NodeClaim: the ephemeral and startup taints do not keep pods off it', () => {
    const claim = launched('default-a', 'i-0000000000000000a', {
      startupTaints: [startup],
      labels: { team: 'a' },
    });
    const [node] = schedulingCapacity({ nodes: [joining], nodeClaims: [claim], daemonSets: [] });
    expect(node.taints).toStrictEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
    expect(node.labels.team).toBe('a');
  });

  it('takes the Node as it is once the NodeClaim is initialized', () => {
    const claim = launched('default-a', 'i-0000000000000000a', {
      startupTaints: [startup],
      status: {
        providerID: 'aws:///us-east-1a/i-0000000000000000a',
        conditions: [
          {
            type: 'Initialized',
            status: 'True',
            reason: 'Initialized',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    const [node] = schedulingCapacity({ nodes: [joining], nodeClaims: [claim], daemonSets: [] });
    expect(node.taints).toHaveLength(4);
  });
});

describe('inFlightNode', () => {
  it('labels the node with what its requirements pin, and gives it the allocatable its launch recorded', () => {
    const node = inFlightNode(launched('default-b', 'i-0000000000000000b'), []);
    expect(node.labels).toMatchObject({ [LABEL_ZONE]: 'us-east-1a', [LABEL_CAPACITY_TYPE]: 'spot' });
    expect(node.labels[LABEL_INSTANCE_TYPE]).toBeUndefined();
    expect(node.allocatable).toEqual(resources({ cpu: '1930m', memory: '7Gi', pods: 29 }));
    expect(node.nodePool).toBe('default');
  });

  it('runs the DaemonSets that tolerate its taints and select its labels', () => {
    const tainted = launched('default-b', 'i-0000000000000000b', {
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    const tolerant: DaemonSet = {
      namespace: 'kube-system',
      name: 'gpu-plugin',
      pod: pod({ cpu: '50m', tolerations: [{ key: 'dedicated', operator: 'Exists' }] }),
    };
    const elsewhere: DaemonSet = {
      namespace: 'kube-system',
      name: 'arm-only',
      pod: pod({
        cpu: '50m',
        nodeSelector: { 'kubernetes.io/arch': 'arm64' },
        tolerations: [{ operator: 'Exists' }],
      }),
    };

    expect(inFlightNode(tainted, [logging, tolerant, elsewhere]).pods.map((p) => p.name)).toEqual([
      'gpu-plugin-default-b',
    ]);
    expect(
      inFlightNode(launched('default-c', 'i-0000000000000000c'), [logging]).pods.map((p) => p.name),
    ).toEqual(['logging-default-c']);
  });
});
