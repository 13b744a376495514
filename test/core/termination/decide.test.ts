import { describe, expect, it } from 'vitest';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { CloudInstance } from '../../../shared/core/ports/cloud';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import {
  decideTermination,
  LAUNCH_TTL_MS,
  ORPHAN_GRACE_MS,
  REGISTRATION_TTL_MS,
  type TerminationInput,
} from '../../../shared/core/termination/decide';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const PROVIDER = 'aws:///us-east-1a/i-0123456789abcdef0';
const cond = (type: string): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: iso(T0),
});

function claim(
  options: {
    launched?: boolean;
    registered?: boolean;
    deleting?: number;
    annotations?: Record<string, string>;
  } = {},
): NodeClaim {
  const conditions = [
    ...(options.launched !== false ? [cond('Launched')] : []),
    ...(options.registered ? [cond('Registered')] : []),
  ];
  return nodeClaim({
    name: 'default-a',
    creationTimestamp: iso(T0),
    finalizers: ['karpenter.sh/termination'],
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(options.deleting !== undefined ? { deletionTimestamp: iso(options.deleting) } : {}),
    status: { ...(options.launched !== false ? { providerID: PROVIDER } : {}), conditions },
  });
}

function node(
  pods = [pod({ name: 'web', ownerKind: 'ReplicaSet' })],
  extra: Partial<StateNode> = {},
): StateNode {
  return {
    ...stateNode({
      name: 'n1',
      nodePool: 'default',
      pods,
      lifecycle: { providerID: PROVIDER, creationTimestamp: iso(T0) },
    }),
    ...extra,
  };
}

const instance = (extra: Partial<CloudInstance> = {}): CloudInstance => ({
  id: 'i-0123456789abcdef0',
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  state: 'running',
  capacityType: 'on-demand',
  launchTime: T0,
  tags: {},
  providerID: PROVIDER,
  nodeClaim: 'default-a',
  ...extra,
});

const input = (over: Partial<TerminationInput>): TerminationInput => ({
  now: T0 + 60_000,
  nodes: [],
  nodeClaims: [],
  nodePools: [nodePool()],
  instances: [],
  ...over,
});

describe('decideTermination: a deleted NodeClaim, one step per run', () => {
  it('taints the Node and evicts the non-critical pods first, leaving DaemonSet and mirror pods', () => {
    const pods = [
      pod({ name: 'web', ownerKind: 'ReplicaSet' }),
      { ...pod({ name: 'dns', ownerKind: 'ReplicaSet' }), priorityClassName: 'system-cluster-critical' },
      pod({ name: 'agent', ownerKind: 'DaemonSet' }),
      pod({ name: 'static', ownerKind: 'Node' }),
    ];
    const actions = decideTermination(
      input({
        nodeClaims: [claim({ registered: true, deleting: T0 })],
        nodes: [node(pods)],
        instances: [instance()],
      }),
    );
    expect(actions).toStrictEqual([
      { kind: 'taint-node', node: 'n1' },
      { kind: 'evict', node: 'n1', pods: [{ namespace: 'default', name: 'web', uid: 'default/web' }] },
    ]);
  });

  it('evicts the critical pods once only they are left, and waits for pods already terminating', () => {
    const critical = {
      ...pod({ name: 'dns', ownerKind: 'ReplicaSet' }),
      priorityClassName: 'system-node-critical',
    };
    const leaving = { ...pod({ name: 'web', ownerKind: 'ReplicaSet' }), deleting: true };
    const tainted = { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }] };
    expect(
      decideTermination(
        input({
          nodeClaims: [claim({ deleting: T0 })],
          nodes: [node([critical], tainted)],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([
      { kind: 'evict', node: 'n1', pods: [{ namespace: 'default', name: 'dns', uid: 'default/dns' }] },
    ]);
    expect(
      decideTermination(
        input({
          nodeClaims: [claim({ deleting: T0 })],
          nodes: [node([leaving], tainted)],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([]);
  });

  it('records when draining stops waiting, and deletes the pods left once the terminationGracePeriod is over', () => {
    const pool = { ...nodePool(), template: { ...nodePool().template, terminationGracePeriod: '10m' } };
    const tainted = { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }] };
    const first = decideTermination(
      input({
        nodePools: [pool],
        nodeClaims: [claim({ deleting: T0 })],
        nodes: [node(undefined, tainted)],
        instances: [instance()],
      }),
    );
    expect(first[0]).toStrictEqual({
      kind: 'set-termination-time',
      nodeClaim: 'default-a',
      at: iso(T0 + 600_000),
    });
    const late = decideTermination(
      input({
        now: T0 + 600_000,
        nodePools: [pool],
        nodeClaims: [
          claim({
            deleting: T0,
            annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': iso(T0 + 600_000) },
          }),
        ],
        nodes: [node(undefined, tainted)],
        instances: [instance()],
      }),
    );
    expect(late).toStrictEqual([
      { kind: 'delete-pods', node: 'n1', pods: [{ namespace: 'default', name: 'web', uid: 'default/web' }] },
    ]);
  });

  it('terminates the instance once drained, waits while it shuts down, then lets the Node and NodeClaim go', () => {
    const drained = node([pod({ name: 'agent', ownerKind: 'DaemonSet' })]);
    const deleting = claim({ deleting: T0 });
    expect(
      decideTermination(input({ nodeClaims: [deleting], nodes: [drained], instances: [instance()] })),
    ).toStrictEqual([
      {
        kind: 'terminate-instance',
        nodeClaim: 'default-a',
        instanceId: 'i-0123456789abcdef0',
        reason: 'NodeClaim deleted',
      },
    ]);
    expect(
      decideTermination(
        input({
          nodeClaims: [deleting],
          nodes: [drained],
          instances: [instance({ state: 'shutting-down' })],
        }),
      ),
    ).toStrictEqual([]);
    expect(
      decideTermination(input({ nodeClaims: [deleting], nodes: [drained], instances: [] })),
    ).toStrictEqual([{ kind: 'finish', nodeClaim: 'default-a', node: 'n1' }]);
  });

  it('lets a NodeClaim that never launched go at once', () => {
    expect(
      decideTermination(input({ nodeClaims: [claim({ launched: false, deleting: T0 })] })),
    ).toStrictEqual([{ kind: 'finish', nodeClaim: 'default-a' }]);
  });
});

describe('decideTermination: garbage collection', () => {
  it('deletes a NodeClaim not launched within 5 minutes, and not before', () => {
    const unlaunched = claim({ launched: false });
    expect(decideTermination(input({ now: T0 + LAUNCH_TTL_MS, nodeClaims: [unlaunched] }))).toStrictEqual([]);
    expect(decideTermination(input({ now: T0 + LAUNCH_TTL_MS + 1, nodeClaims: [unlaunched] }))).toStrictEqual(
      [{ kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'not launched within 5 minutes' }],
    );
  });

  it('deletes a launched NodeClaim whose Node did not register within 15 minutes', () => {
    const over = decideTermination(
      input({ now: T0 + REGISTRATION_TTL_MS + 1, nodeClaims: [claim()], instances: [instance()] }),
    );
    expect(over).toStrictEqual([
      {
        kind: 'delete-nodeclaim',
        nodeClaim: 'default-a',
        reason: 'its Node did not register within 15 minutes',
      },
    ]);
    expect(
      decideTermination(
        input({ now: T0 + REGISTRATION_TTL_MS, nodeClaims: [claim()], instances: [instance()] }),
      ),
    ).toStrictEqual([]);
  });

  it('deletes the NodeClaim of a Node a user deleted, and of an instance that is gone', () => {
    const registered = claim({ registered: true });
    expect(
      decideTermination(
        input({
          nodeClaims: [registered],
          nodes: [node(undefined, { deleting: true })],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([
      { kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'its Node is being deleted' },
    ]);
    expect(
      decideTermination(input({ nodeClaims: [registered], nodes: [node()], instances: [] })),
    ).toStrictEqual([{ kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'its instance is gone' }]);
  });

  it('terminates an instance of the cluster that no NodeClaim owns, after a grace period', () => {
    const orphan = instance({ id: 'i-0aaaaaaaaaaaaaaaa', nodeClaim: 'gone-x' });
    expect(decideTermination(input({ now: T0 + ORPHAN_GRACE_MS, instances: [orphan] }))).toStrictEqual([]);
    expect(decideTermination(input({ now: T0 + ORPHAN_GRACE_MS + 1, instances: [orphan] }))).toStrictEqual([
      { kind: 'terminate-instance', instanceId: 'i-0aaaaaaaaaaaaaaaa', reason: 'no NodeClaim owns it' },
    ]);
  });

  it('removes a podlift Node whose instance is gone and whose NodeClaim no longer exists', () => {
    expect(decideTermination(input({ nodes: [node()], instances: [] }))).toStrictEqual([
      { kind: 'finish', node: 'n1' },
    ]);
    const foreign = { ...node(), nodePool: undefined };
    expect(decideTermination(input({ nodes: [foreign], instances: [] }))).toStrictEqual([]);
  });
});
