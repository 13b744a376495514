import { describe, expect, it } from 'vitest';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { CloudInstance } from '../../../shared/core/ports/cloud';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import {
  decideTermination,
  LAUNCH_TTL_MS,
  ORPHAN_GRACE_MS,
  REGISTRATION_TTL_MS,
  type TerminationInput,
} from '../../../shared/core/termination/decide';
import { needsClaimedVolumes } from '../../../shared/core/termination/node-termination';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const PROVIDER = 'aws:///us-east-1a/i-0123456789abcdef0';
const cond = (type: string, status: Condition['status'] = 'True', at = T0): Condition => ({
  type,
  status,
  reason: type,
  message: '',
  lastTransitionTime: iso(at),
});

function claim(
  options: {
    launched?: boolean;
    registered?: boolean;
    deleting?: number;
    annotations?: Record<string, string>;
    conditions?: Condition[];
  } = {},
): NodeClaim {
  const conditions = [
    ...(options.launched !== false ? [cond('Launched')] : []),
    ...(options.registered ? [cond('Registered')] : []),
    ...(options.conditions ?? []),
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
      lifecycle: { providerID: PROVIDER, creationTimestamp: iso(T0), ready: true },
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

const TAINT = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };
const EXCLUDE = { 'node.kubernetes.io/exclude-from-external-load-balancers': 'karpenter' };
/** A Node already tainted and labelled for termination. */
const marked = (pods: Pod[], extra: Partial<StateNode> = {}) =>
  node(pods, { taints: [TAINT], labels: { ...node().labels, ...EXCLUDE }, ...extra });
const ref = (name: string) => ({ namespace: 'default', name, uid: `default/${name}` });
const web = (extra: Partial<Pod> = {}): Pod => ({
  ...pod({ name: extra.name ?? 'web', ownerKind: 'ReplicaSet' }),
  ...extra,
});
const draining = (at: number) => ({ ...cond('Drained', 'Unknown', at), reason: 'Draining' });
const drainedClaim = (extra: Parameters<typeof claim>[0] = {}) =>
  claim({ deleting: T0, conditions: [cond('Drained'), cond('VolumesDetached')], ...extra });
const nodeEvent = (reason: string, type: string, message: string, once?: true) => ({
  kind: 'record-event',
  event: {
    object: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    type,
    reason,
    message,
    ...(once ? { once } : {}),
  },
});
const failedDraining = (n: number) =>
  nodeEvent('FailedDraining', 'Warning', `Failed to drain node, ${n} pods are waiting to be evicted`);
const terminate = {
  kind: 'terminate-instance',
  nodeClaim: 'default-a',
  instanceId: 'i-0123456789abcdef0',
  reason: 'NodeClaim deleted',
};
const kinds = (actions: readonly { kind: string }[]) => actions.map((a) => a.kind);

describe('decideTermination: draining a deleted NodeClaim’s Node (node/termination/controller.go)', () => {
  it('taints and labels the Node, starts Drained, evicts only the first group and says how many pods wait', () => {
    const pods = [
      web(),
      web({ name: 'dns', priorityClassName: 'system-cluster-critical' }),
      web({ name: 'agent', ownerKind: 'DaemonSet' }),
      web({ name: 'static', ownerKind: 'Node' }),
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
      { kind: 'evict', node: 'n1', pods: [ref('web')], reason: 'Forceful Termination' },
      failedDraining(3),
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [{ type: 'Drained', status: 'Unknown', reason: 'Draining', message: 'Draining' }],
      },
    ]);
  });

  it('labels a Node that has the taint but not the label; leaves one that has both', () => {
    const claims = [claim({ deleting: T0, conditions: [draining(T0)] })];
    const taintedOnly = node([web()], { taints: [TAINT] });
    expect(
      kinds(decideTermination(input({ nodeClaims: claims, nodes: [taintedOnly], instances: [instance()] }))),
    ).toContain('taint-node');
    expect(
      kinds(
        decideTermination(input({ nodeClaims: claims, nodes: [marked([web()])], instances: [instance()] })),
      ),
    ).not.toContain('taint-node');
  });

  it('drains DaemonSet pods after the others, then critical ones, with the reason of the disruption', () => {
    const reason = { ...cond('DisruptionReason'), reason: 'Underutilized' };
    const claims = [claim({ deleting: T0, conditions: [draining(T0), reason] })];
    const agent = web({ name: 'agent', ownerKind: 'DaemonSet' });
    const dns = web({ name: 'dns', priorityClassName: 'system-node-critical' });
    const step = (pods: Pod[]) =>
      decideTermination(input({ nodeClaims: claims, nodes: [marked(pods)], instances: [instance()] }));
    expect(step([agent, dns])).toStrictEqual([
      { kind: 'evict', node: 'n1', pods: [ref('agent')], reason: 'Underutilized' },
      failedDraining(2),
    ]);
    expect(step([dns])[0]).toStrictEqual({
      kind: 'evict',
      node: 'n1',
      pods: [ref('dns')],
      reason: 'Underutilized',
    });
  });

  it('never evicts a do-not-disrupt pod or one already Terminating, and waits for both', () => {
    const pinned = web({ name: 'pinned', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const leaving = web({ name: 'leaving', deleting: true, deletionTimestamp: iso(T0 + 30_000) });
    const claims = [claim({ deleting: T0, conditions: [draining(T0)] })];
    expect(
      decideTermination(
        input({
          now: T0 + 3_600_000,
          nodeClaims: claims,
          nodes: [marked([pinned, leaving])],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([failedDraining(1)]);
    expect(
      decideTermination(
        input({ nodeClaims: claims, nodes: [marked([pinned, leaving])], instances: [instance()] }),
      ),
    ).toStrictEqual([failedDraining(2)]);
  });

  it('stops waiting for a pod stuck Terminating over a minute, as when its kubelet is gone', () => {
    // suite_test "should bypass pods which are stuck terminating past their grace period"
    const stuck = web({ deleting: true, deletionTimestamp: iso(T0) });
    const claims = [claim({ deleting: T0, conditions: [draining(T0)] })];
    const at = (now: number) =>
      decideTermination(
        input({ now, nodeClaims: claims, nodes: [marked([stuck])], instances: [instance()] }),
      );
    expect(at(T0 + 60_000)).toStrictEqual([failedDraining(1)]);
    expect(at(T0 + 60_001)).toStrictEqual([
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [
          { type: 'Drained', status: 'True' },
          { type: 'VolumesDetached', status: 'True' },
        ],
      },
      terminate,
    ]);
  });

  it('declares the Node drained only in a run after the one that began the drain', () => {
    // controller.go awaitDrain: Drained Unknown ("Draining") first; True once nothing waits. A
    // NodeClaim without the condition has not been through a drain run yet.
    const at = (conditions: Condition[]) =>
      decideTermination(
        input({
          nodeClaims: [claim({ deleting: T0, conditions })],
          nodes: [marked([])],
          instances: [instance()],
        }),
      );
    expect(at([])).toStrictEqual([
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [{ type: 'Drained', status: 'Unknown', reason: 'Draining', message: 'Draining' }],
      },
    ]);
    expect(at([draining(T0 + 59_000)])).toStrictEqual([
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [
          { type: 'Drained', status: 'True' },
          { type: 'VolumesDetached', status: 'True' },
        ],
      },
      terminate,
    ]);
  });

  it('finalizes a NotReady Node whose instance is gone without draining it, but drains a Ready one', () => {
    // suite_test "should delete nodes with no underlying instance even if not fully drained" and
    // "should not delete nodes with no underlying instance if the node is still Ready"
    const claims = [claim({ deleting: T0 })];
    expect(
      decideTermination(
        input({ nodeClaims: claims, nodes: [node([web()], { ready: false })], instances: [] }),
      ),
    ).toStrictEqual([{ kind: 'finish', nodeClaim: 'default-a', node: 'n1' }]);
    expect(
      kinds(decideTermination(input({ nodeClaims: claims, nodes: [node([web()])], instances: [] }))),
    ).toContain('evict');
    expect(
      kinds(
        decideTermination(
          input({ nodeClaims: claims, nodes: [node([web()], { ready: false })], instances: [instance()] }),
        ),
      ),
    ).toContain('evict');
  });
});

describe('decideTermination: terminationGracePeriod (lifecycle/controller.go, eviction.go needsForceDelete)', () => {
  const pool = { ...nodePool(), template: { ...nodePool().template, terminationGracePeriod: '5m' } };
  const deadline = iso(T0 + 300_000).replace('.000Z', 'Z');
  const annotated = (conditions: Condition[] = [draining(T0)]) =>
    claim({
      deleting: T0,
      conditions,
      annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': deadline },
    });

  it('records the termination time with an Event on the NodeClaim, then warns on the Node every step', () => {
    const first = decideTermination(
      input({
        nodePools: [pool],
        nodeClaims: [claim({ deleting: T0 })],
        nodes: [marked([web()])],
        instances: [instance()],
      }),
    );
    expect(first.slice(0, 2)).toStrictEqual([
      { kind: 'set-termination-time', nodeClaim: 'default-a', at: deadline },
      {
        kind: 'record-event',
        event: {
          object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'default-a', uid: claim().uid },
          type: 'Warning',
          reason: 'TerminationGracePeriodExpiring',
          message: `All pods will be deleted by ${deadline}`,
          once: true,
        },
      },
    ]);
    const next = decideTermination(
      input({
        nodePools: [pool],
        nodeClaims: [annotated()],
        nodes: [marked([web()])],
        instances: [instance()],
      }),
    );
    expect(next[0]).toStrictEqual(
      nodeEvent('TerminationGracePeriodExpiring', 'Warning', `All pods will be deleted by ${deadline}`, true),
    );
  });

  it('deletes a pod once its own grace period would outlast the deadline, granting the time left', () => {
    // suite_test "should only delete pods when their terminationGracePeriodSeconds is less than
    // the node's remaining terminationGracePeriod": 60 s pod grace, 300 s node grace.
    const pinned = web({
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      terminationGracePeriodSeconds: 60,
    });
    const at = (now: number) =>
      decideTermination(
        input({ now, nodeClaims: [annotated()], nodes: [marked([pinned])], instances: [instance()] }),
      );
    expect(kinds(at(T0 + 90_000))).toStrictEqual(['record-event', 'record-event']);
    const late = at(T0 + 265_000);
    expect(late[1]).toStrictEqual({
      kind: 'delete-pods',
      node: 'n1',
      pods: [{ ...ref('web'), gracePeriodSeconds: 35 }],
    });
    expect(late[2]).toStrictEqual({
      kind: 'record-event',
      event: {
        object: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web', uid: 'default/web' },
        type: 'Normal',
        reason: 'Disrupted',
        message:
          'Deleting the pod to accommodate the terminationTime 2026-01-01 00:05:00 +0000 UTC of the node. ' +
          'The pod was granted 35 seconds of grace-period of its 60 terminationGracePeriodSeconds. ' +
          'This bypasses the PDB of the pod and the do-not-disrupt annotation.',
      },
    });
  });

  it('shortens the grace of a Terminating pod due after the deadline', () => {
    // suite_test "should update deletion timestamp for terminating pods when it is after node deletion timestamp"
    const slow = web({
      deleting: true,
      deletionTimestamp: iso(T0 + 6_000_000),
      terminationGracePeriodSeconds: 6000,
    });
    const actions = decideTermination(
      input({
        now: T0 + 90_000,
        nodeClaims: [annotated()],
        nodes: [marked([slow])],
        instances: [instance()],
      }),
    );
    expect(actions[1]).toStrictEqual({
      kind: 'delete-pods',
      node: 'n1',
      pods: [{ ...ref('web'), gracePeriodSeconds: 210 }],
    });
  });
});

describe('decideTermination: volume detachment (controller.go awaitVolumeDetachment)', () => {
  const attachment = (name: string, pv?: string, nodeName = 'n1') => ({
    name,
    nodeName,
    ...(pv ? { persistentVolumeName: pv } : {}),
  });
  const run = (over: Partial<TerminationInput>, claims = [drainedClaim()]) =>
    decideTermination(input({ nodeClaims: claims, nodes: [marked([])], instances: [instance()], ...over }));

  it('waits for the Node’s VolumeAttachments, saying which, before terminating the instance', () => {
    // suite_test "should wait for volume attachments"
    const actions = run({
      volumeAttachments: [attachment('va-1', 'pv-1'), attachment('va-2', 'pv-2', 'n2')],
    });
    expect(actions).toStrictEqual([
      nodeEvent('AwaitingVolumeDetachment', 'Normal', 'Awaiting deletion of bound volumeattachments (va-1)'),
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [
          {
            type: 'VolumesDetached',
            status: 'Unknown',
            reason: 'AwaitingVolumeDetachment',
            message: 'AwaitingVolumeDetachment',
          },
        ],
      },
    ]);
    const many = Array.from({ length: 7 }, (_, i) => attachment(`va-${i}`, `pv-${i}`));
    expect(run({ volumeAttachments: many })[0]).toStrictEqual(
      nodeEvent(
        'AwaitingVolumeDetachment',
        'Normal',
        'Awaiting deletion of bound volumeattachments (va-0, va-1, va-2, va-3, va-4 and 2 other(s))',
      ),
    );
  });

  it('does not wait for the volumes of pods the drain leaves, nor for inline volumes', () => {
    // suite_test "should only wait for volume attachments associated with drainable pods"
    const tolerant = web({
      tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }],
      volumeClaims: ['data'],
    });
    const actions = decideTermination(
      input({
        nodeClaims: [drainedClaim()],
        nodes: [marked([tolerant])],
        instances: [instance()],
        volumeAttachments: [attachment('va-1', 'pv-1'), attachment('va-inline')],
        claimedVolumes: new Map([['default/data', 'pv-1']]),
      }),
    );
    expect(actions).toStrictEqual([terminate]);
    expect(needsClaimedVolumes([marked([tolerant])], [attachment('va-1', 'pv-1')], T0)).toBe(true);
    expect(needsClaimedVolumes([marked([tolerant])], [attachment('va-1', 'pv-1', 'n2')], T0)).toBe(false);
    expect(
      needsClaimedVolumes([marked([web({ volumeClaims: ['data'] })])], [attachment('va-1', 'pv-1')], T0),
    ).toBe(false);
  });

  it('stops waiting once the terminationGracePeriod is over, marking VolumesDetached False', () => {
    // suite_test "should wait for volume attachments until the nodeclaim's termination grace period expires"
    const deadline = iso(T0 + 300_000).replace('.000Z', 'Z');
    const late = drainedClaim({ annotations: { 'karpenter.sh/nodeclaim-termination-timestamp': deadline } });
    const at = (now: number) => run({ now, volumeAttachments: [attachment('va-1', 'pv-1')] }, [late]);
    expect(kinds(at(T0 + 300_000))).toStrictEqual(['record-event', 'record-event', 'set-conditions']);
    expect(at(T0 + 300_001).slice(1)).toStrictEqual([
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [
          {
            type: 'VolumesDetached',
            status: 'False',
            reason: 'TerminationGracePeriodElapsed',
            message: 'TerminationGracePeriodElapsed',
          },
        ],
      },
      terminate,
    ]);
  });
});

describe('decideTermination: the instance and the finalizers (lifecycle/controller.go finalize)', () => {
  it('terminates the instance once drained, waits while it shuts down, then lets the Node and NodeClaim go', () => {
    const drained = marked([web({ name: 'static', ownerKind: 'Node' })]);
    const deleting = drainedClaim();
    expect(
      decideTermination(input({ nodeClaims: [deleting], nodes: [drained], instances: [instance()] })),
    ).toStrictEqual([terminate]);
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

  it('terminates the instance of a NodeClaim whose Node is gone, then lets it go', () => {
    expect(
      decideTermination(input({ nodeClaims: [claim({ deleting: T0 })], instances: [instance()] })),
    ).toStrictEqual([terminate]);
    expect(decideTermination(input({ nodeClaims: [claim({ deleting: T0 })] }))).toStrictEqual([
      { kind: 'finish', nodeClaim: 'default-a' },
    ]);
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

  it('deletes the NodeClaim of a Node a user deleted', () => {
    expect(
      decideTermination(
        input({
          nodeClaims: [claim({ registered: true })],
          nodes: [node(undefined, { deleting: true })],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([
      { kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'its Node is being deleted' },
    ]);
  });

  it('deletes a Registered NodeClaim whose instance is gone unless its Node is still Ready', () => {
    // garbagecollection/controller.go Reconcile: Registered, not listed by the cloud provider,
    // and the Node missing or its Ready condition not True.
    const registered = claim({ registered: true });
    const gone = [{ kind: 'delete-nodeclaim', nodeClaim: 'default-a', reason: 'its instance is gone' }];
    const run = (nodes: StateNode[], instances: CloudInstance[] = []) =>
      decideTermination(input({ nodeClaims: [registered], nodes, instances }));
    expect(run([node(undefined, { ready: false })])).toStrictEqual(gone);
    expect(run([])).toStrictEqual(gone);
    expect(run([node()])).toStrictEqual([]);
    expect(run([node(undefined, { ready: false })], [instance({ state: 'shutting-down' })])).toStrictEqual(
      [],
    );
  });

  it('leaves a launched NodeClaim that has not registered to its registration timeout, instance or not', () => {
    expect(decideTermination(input({ now: T0 + REGISTRATION_TTL_MS, nodeClaims: [claim()] }))).toStrictEqual(
      [],
    );
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
