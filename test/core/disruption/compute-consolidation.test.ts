import { describe, expect, it } from 'vitest';
import { type Candidate, disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { computeConsolidation, replacementPlans } from '../../../shared/core/disruption/methods';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, pod, resources } from '../../../sim/world/builders';
import { m5xlargeMember, snapshotOf } from './snapshot';

/** A registered m5.xlarge ($0.192/h) running `pods`; `starting`: not initialized. */
const member = (name: string, pods: readonly Pod[], starting = false) =>
  m5xlargeMember(name, pods, { starting });

const web = (name: string, cpu = '500m', more: Parameters<typeof pod>[0] = {}) =>
  pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet', ...more });
const candidate = (members: readonly [StateNode, NodeClaim][], name: string): Candidate => {
  const found = disruptionCandidates(snapshotOf(members)).find((c) => c.node.name === name);
  if (!found) throw new Error(`${name} is no candidate`);
  return found;
};

// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go `computeConsolidation`
// and helpers.go `SimulateScheduling`.
describe('computeConsolidation', () => {
  const members = [member('a', [web('a1')]), member('b', [])];
  const s = snapshotOf(members);
  const a = candidate(members, 'a');

  it('deletes when the pods fit elsewhere (the baseline the cases below change one thing of)', () => {
    expect(computeConsolidation([a], s)).toStrictEqual({ action: 'delete', savings: 0.192 });
  });

  it('does nothing without a catalog to price a replacement, for no candidates, or for an unpriced one', () => {
    // Karpenter's candidates all carry a price (`getCandidatePrices` fails the whole
    // computation otherwise); one priced at 0 cannot be compared with a replacement.
    expect(computeConsolidation([a], { ...s, catalog: undefined })).toStrictEqual({ action: 'none' });
    expect(computeConsolidation([], s)).toStrictEqual({ action: 'none' });
    expect(computeConsolidation([{ ...a, price: 0 }], s)).toStrictEqual({ action: 'none' });
    const [b] = disruptionCandidates(s).filter((c) => c.node.name === 'b');
    expect(computeConsolidation([a, { ...b, price: 0 }], s)).toStrictEqual({ action: 'none' });
  });

  it("does nothing when a candidate's pod would schedule nowhere (`AllNonPendingPodsScheduled`)", () => {
    const huge = [member('a', [web('a1', '1000')]), member('b', [])];
    expect(computeConsolidation([candidate(huge, 'a')], snapshotOf(huge))).toStrictEqual({ action: 'none' });
  });

  it("does nothing when a candidate's pod would land on a starting node beside a pending pod (UninitializedNodeError)", () => {
    const withStarting = [member('a', [web('a1')]), member('c', [], true)];
    const pending = [web('p1', '100m')];
    expect(
      computeConsolidation(
        [candidate(withStarting, 'a')],
        snapshotOf(withStarting, { pendingPods: pending }),
      ),
    ).toStrictEqual({ action: 'none' });
  });

  it("does nothing when a candidate's pod would land on a NodeClaim whose launch is not recorded", () => {
    // It is capacity the provisioner counts (state/cluster-snapshot.ts schedulingCapacity) but
    // not initialized, and it may never launch: Karpenter's disruption waits on cluster.go
    // `Synced` while any NodeClaim has no providerID.
    const alone = [member('a', [web('a1')])];
    const throttled = nodeClaim({
      name: 'throttled',
      requests: resources({ cpu: '2', memory: '2Gi', pods: 4 }),
    });
    const s = snapshotOf(alone);
    expect(
      computeConsolidation([candidate(alone, 'a')], { ...s, nodeClaims: [...s.nodeClaims, throttled] }),
    ).toStrictEqual({
      action: 'none',
    });
  });

  it('says why when the pods need more than one new node (consolidation.go Unconsolidatable Event)', () => {
    const zone = (z: string) => ({ nodeSelector: { 'topology.kubernetes.io/zone': z } });
    const split = [member('a', [web('a1', '3', zone('us-east-1a')), web('a2', '3', zone('us-east-1b'))])];
    expect(computeConsolidation([candidate(split, 'a')], snapshotOf(split))).toStrictEqual({
      action: 'none',
      why: "Can't remove without creating 2 candidates",
    });
  });
});

describe('replacementPlans', () => {
  it("counts every candidate's pod unschedulable without a catalog", () => {
    const members = [member('a', [web('a1'), web('a2')]), member('b', [web('b1')])];
    const s = { ...snapshotOf(members), catalog: undefined };
    const chosen = disruptionCandidates(snapshotOf(members));
    expect(replacementPlans(chosen, s)).toStrictEqual({ plans: [], unschedulable: 3 });
  });

  it("returns the plans holding candidates' pods, also when they hold pending pods too", () => {
    const members = [member('a', [web('a1', '3')])];
    const s = snapshotOf(members, { pendingPods: [web('p1', '100m')] });
    const { plans, unschedulable } = replacementPlans([candidate(members, 'a')], s);
    expect(unschedulable).toBe(0);
    expect(plans.map((p) => p.pods.map((x) => x.name).sort())).toStrictEqual([['a1', 'p1']]);
  });

  it('leaves out plans and unschedulable pods that are only pending pods', () => {
    const members = [member('a', [web('a1')]), member('b', [])];
    const pending = [
      web('p1', '1000'),
      web('p2', '3', { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1b' } }),
    ];
    const s = snapshotOf(members, { pendingPods: pending });
    expect(replacementPlans([candidate(members, 'a')], s)).toStrictEqual({ plans: [], unschedulable: 0 });
  });
});
