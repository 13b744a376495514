import { describe, expect, it } from 'vitest';
import { initializationBlocker, lifecycleStep } from '../../../shared/core/lifecycle/registration';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Taint } from '../../../shared/core/model/taints';
import type { StateNode } from '../../../shared/core/state/cluster-state';

/**
 * Cases from kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle registration_test.go
 * and initialization_test.go.
 */

const PROVIDER_ID = 'aws:///us-east-1a/i-0123456789abcdef0';
const condition = (type: string): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const registered = condition('Registered');

function claim(
  overrides: Partial<Omit<NodeClaim, 'spec'>> & { spec?: Partial<NodeClaim['spec']> } = {},
): NodeClaim {
  const { spec, ...rest } = overrides;
  return {
    name: 'default-abcde',
    uid: 'uid-claim',
    labels: { 'karpenter.sh/nodepool': 'default' },
    annotations: { 'karpenter.sh/nodepool-hash': '123' },
    finalizers: ['karpenter.sh/termination'],
    status: { providerID: PROVIDER_ID },
    ...rest,
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [],
      resources: { requests: { cpu: 2000, memory: 50 * 2 ** 20, pods: 5 } },
      taints: [],
      startupTaints: [],
      ...spec,
    },
  };
}

function node(overrides: Partial<StateNode> = {}): StateNode {
  return {
    kind: 'node',
    name: 'ip-10-0-0-1.ec2.internal',
    labels: {},
    taints: [],
    allocatable: { cpu: 8000, memory: 80 * 2 ** 20, pods: 110 },
    pods: [],
    providerID: PROVIDER_ID,
    ready: true,
    ...overrides,
  };
}

const UNREGISTERED: Taint = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' };

describe('lifecycleStep: registration (registration.go syncNode)', () => {
  it('syncs labels, annotations, the registered label, the finalizer and the owner reference, and records Registered', () => {
    const step = lifecycleStep(claim(), node({ taints: [UNREGISTERED] }));
    expect(step).toStrictEqual({
      nodeClaim: 'default-abcde',
      node: 'ip-10-0-0-1.ec2.internal',
      transition: 'registered',
      nodeMetadata: {
        labels: { 'karpenter.sh/nodepool': 'default', 'karpenter.sh/registered': 'true' },
        annotations: { 'karpenter.sh/nodepool-hash': '123' },
      },
      nodeTaints: { add: [], remove: [UNREGISTERED] },
      nodeFinalizer: 'karpenter.sh/termination',
      nodeOwner: {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        name: 'default-abcde',
        uid: 'uid-claim',
        blockOwnerDeletion: true,
      },
      status: { nodeName: 'ip-10-0-0-1.ec2.internal', conditions: [{ type: 'Registered', status: 'True' }] },
    });
  });

  it('adds no owner reference for a NodeClaim whose uid is unknown', () => {
    const { uid: _uid, ...withoutUid } = claim();
    expect(lifecycleStep(withoutUid, node())?.nodeOwner).toBeUndefined();
  });

  it('syncs the taints and startup taints the Node lacks', () => {
    const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    const startup: Taint = { key: 'custom-startup-taint', value: 'x', effect: 'NoSchedule' };
    const present: Taint = { key: 'already', effect: 'NoExecute' };
    const step = lifecycleStep(
      claim({ spec: { taints: [taint, present], startupTaints: [startup] } }),
      node({ taints: [{ ...present, value: 'other' }] }),
    );
    expect(step?.nodeTaints).toStrictEqual({ add: [taint, startup], remove: [UNREGISTERED] });
  });

  it('syncs no taints with karpenter.sh/do-not-sync-taints=true, and does when the label is not "true"', () => {
    const spec = { taints: [{ key: 'a', effect: 'NoSchedule' as const }], startupTaints: [] };
    const off = lifecycleStep(
      claim({ spec }),
      node({ labels: { 'karpenter.sh/do-not-sync-taints': 'true' } }),
    );
    expect(off?.nodeTaints).toStrictEqual({ add: [], remove: [UNREGISTERED] });
    const on = lifecycleStep(
      claim({ spec }),
      node({ labels: { 'karpenter.sh/do-not-sync-taints': 'false' } }),
    );
    expect(on?.nodeTaints?.add).toStrictEqual(spec.taints);
  });

  it('does nothing for a deleting NodeClaim or Node', () => {
    expect(lifecycleStep(claim({ deletionTimestamp: '2026-01-01T00:00:00Z' }), node())).toBeUndefined();
    expect(lifecycleStep(claim(), node({ deleting: true }))).toBeUndefined();
  });
});

describe('lifecycleStep: initialization (initialization.go Reconcile)', () => {
  const registeredClaim = (spec: Partial<NodeClaim['spec']> = {}) =>
    claim({ spec, status: { providerID: PROVIDER_ID, nodeName: 'n', conditions: [registered] } });

  it('initializes a registered NodeClaim whose Node is ready and untainted', () => {
    expect(lifecycleStep(registeredClaim(), node())).toStrictEqual({
      nodeClaim: 'default-abcde',
      node: 'ip-10-0-0-1.ec2.internal',
      transition: 'initialized',
      nodeMetadata: { labels: { 'karpenter.sh/initialized': 'true' } },
      status: { conditions: [{ type: 'Initialized', status: 'True' }] },
    });
  });

  it('does nothing once Initialized, or while something blocks it', () => {
    const done = claim({
      status: { providerID: PROVIDER_ID, conditions: [registered, condition('Initialized')] },
    });
    expect(lifecycleStep(done, node())).toBeUndefined();
    expect(lifecycleStep(registeredClaim(), node({ ready: false }))).toBeUndefined();
  });
});

describe('initializationBlocker', () => {
  it('waits for the Node to be Ready', () => {
    expect(initializationBlocker(claim(), node({ ready: false }))).toBe('node not ready');
    expect(initializationBlocker(claim(), node({ ready: undefined }))).toBe('node not ready');
  });

  it('waits for the startup taints to be removed (key and effect match, the value does not matter)', () => {
    const startup: Taint = {
      key: 'custom-startup-taint',
      value: 'custom-startup-value',
      effect: 'NoSchedule',
    };
    const c = claim({ spec: { startupTaints: [startup] } });
    expect(initializationBlocker(c, node({ taints: [{ key: startup.key, effect: 'NoSchedule' }] }))).toBe(
      'startup taint custom-startup-taint:NoSchedule still on the node',
    );
    expect(
      initializationBlocker(c, node({ taints: [{ key: startup.key, effect: 'NoExecute' }] })),
    ).toBeUndefined();
    expect(
      initializationBlocker(c, node({ taints: [{ key: 'other', effect: 'NoSchedule' }] })),
    ).toBeUndefined();
    expect(initializationBlocker(c, node())).toBeUndefined();
  });

  it.each([
    [
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
      'node.kubernetes.io/not-ready:NoSchedule',
    ],
    [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, 'node.kubernetes.io/not-ready:NoExecute'],
    [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      'node.kubernetes.io/unreachable:NoSchedule',
    ],
    [
      { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
      'node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule',
    ],
    [
      { key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' },
      'node.cloudprovider.kubernetes.io/uninitialized:NoSchedule',
    ],
    [UNREGISTERED, 'karpenter.sh/unregistered:NoExecute'],
    [{ key: 'readiness.k8s.io/network', effect: 'NoSchedule' }, 'readiness.k8s.io/network:NoSchedule'],
  ] as [Taint, string][])('waits while the known ephemeral taint %o is on the Node', (taint, shown) => {
    expect(
      initializationBlocker(claim(), node({ taints: [{ key: 'custom', effect: 'NoSchedule' }, taint] })),
    ).toBe(`known ephemeral taint ${shown} still on the node`);
  });

  it('does not wait for taints that only look like the ephemeral ones', () => {
    const lookalikes: Taint[] = [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      { key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoExecute' },
      { key: 'karpenter.sh/unregistered', effect: 'NoSchedule' },
      { key: 'x.readiness.k8s.io/network', effect: 'NoSchedule' },
    ];
    expect(initializationBlocker(claim(), node({ taints: lookalikes }))).toBeUndefined();
  });

  it('waits for every requested extended resource to be reported allocatable', () => {
    const gpu = claim({ spec: { resources: { requests: { cpu: 1000, 'nvidia.com/gpu': 1 } } } });
    expect(initializationBlocker(gpu, node())).toBe('extended resource nvidia.com/gpu not reported yet');
    expect(initializationBlocker(gpu, node({ allocatable: { cpu: 8000, 'nvidia.com/gpu': 0 } }))).toBe(
      'extended resource nvidia.com/gpu not reported yet',
    );
    expect(
      initializationBlocker(gpu, node({ allocatable: { cpu: 8000, 'nvidia.com/gpu': 1 } })),
    ).toBeUndefined();
  });

  it('ignores zero requests and the standard resources the kubelet always reports', () => {
    const zero = claim({ spec: { resources: { requests: { 'nvidia.com/gpu': 0 } } } });
    expect(initializationBlocker(zero, node())).toBeUndefined();
    const standard = claim({
      spec: { resources: { requests: { cpu: 1, memory: 1, pods: 1, 'ephemeral-storage': 1 } } },
    });
    expect(initializationBlocker(standard, node({ allocatable: {} }))).toBeUndefined();
  });
});
