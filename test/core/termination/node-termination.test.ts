import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import { decideTermination } from '../../../shared/core/termination/decide';
import { nodePool } from '../../../sim/world/builders';
import {
  claim,
  cond,
  draining,
  failedDraining,
  input,
  instance,
  iso,
  kinds,
  marked,
  node,
  nodeEvent,
  ref,
  T0,
  TAINT,
  terminate,
  web,
} from './fixtures';

// A deleted NodeClaim's Node through kubernetes-sigs/karpenter pkg/controllers/node/termination/
// controller.go `finalize` (awaitDrain, awaitVolumeDetachment) and terminator/eviction.go, cases
// after its suite_test.go.

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
    // Only karpenter.sh/disrupted with effect NoSchedule counts (terminator.go `Taint`, MatchTaint).
    for (const taint of [
      { key: 'example.com/other', effect: 'NoSchedule' as const },
      { key: 'karpenter.sh/disrupted', effect: 'NoExecute' as const },
    ]) {
      const other = marked([web()], { taints: [taint] });
      expect(
        kinds(decideTermination(input({ nodeClaims: claims, nodes: [other], instances: [instance()] }))),
      ).toContain('taint-node');
    }
  });

  it('rewrites a condition whose status matches but whose reason does not, and reads a status without conditions', () => {
    const stale = [cond('Drained'), { ...cond('VolumesDetached'), reason: 'SomethingElse' }];
    expect(
      decideTermination(
        input({
          nodeClaims: [claim({ deleting: T0, conditions: stale })],
          nodes: [marked([])],
          instances: [instance()],
        }),
      ),
    ).toStrictEqual([
      {
        kind: 'set-conditions',
        nodeClaim: 'default-a',
        conditions: [{ type: 'VolumesDetached', status: 'True' }],
      },
      terminate,
    ]);
    const bare = { ...claim({ deleting: T0 }), status: { providerID: claim().status.providerID } };
    expect(
      kinds(decideTermination(input({ nodeClaims: [bare], nodes: [marked([])], instances: [instance()] }))),
    ).toStrictEqual(['set-conditions']);
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
