import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { simulationBase } from '../../../shared/core/disruption/simulation-base';
import type { Condition } from '../../../shared/core/model/nodeclaim';
import { nodeClaim, pod, stateNode } from '../../../sim/world/builders';
import { catalog, snapshotOf, T0 } from './snapshot';

const condition = (type: string, status: 'True' | 'False') => ({
  type,
  status,
  reason: type,
  message: '',
  lastTransitionTime: new Date(T0).toISOString(),
});

/**
 * A registered Node of NodePool default and its NodeClaim: Initialized, or with `conditions`
 * (none by default) when not.
 */
function member(name: string, initialized: boolean, conditions?: readonly Condition[]) {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: 'default',
    allocatable: { cpu: '3920m', memory: '14Gi', pods: 58 },
    lifecycle: { providerID, ready: true },
  });
  const claim = nodeClaim({
    name: `claim-${name}`,
    status: {
      providerID,
      ...(initialized
        ? { conditions: [condition('Initialized', 'True')] }
        : conditions
          ? { conditions }
          : {}),
    },
  });
  return [node, claim] as const;
}

describe('simulationBase', () => {
  it('is built once per snapshot object and names the capacity not initialized yet', () => {
    const snapshot = snapshotOf([member('ready', true), member('starting', false)]);
    const base = simulationBase(snapshot, catalog);
    expect(simulationBase(snapshot, catalog)).toBe(base);
    expect([...base.uninitialized]).toEqual(['starting']);
    // Initialized is the condition that counts, and only when True: a NodeClaim launched and
    // registered but Initialized=False is still starting (Karpenter's statenode.go `Initialized`).
    const registered = snapshotOf([
      member('ready', true),
      member('registered', false, [condition('Launched', 'True'), condition('Registered', 'True')]),
      member('refused', false, [condition('Initialized', 'False')]),
    ]);
    expect([...simulationBase(registered, catalog).uninitialized]).toEqual(['registered', 'refused']);
    // Another snapshot (a decision beside other commands, a later run) gets its own.
    const other = { ...snapshot };
    expect(simulationBase(other, catalog)).not.toBe(base);
  });

  it("plans on the snapshot's capacity less the nodes a simulation leaves out", () => {
    const snapshot = snapshotOf([member('a', true), member('b', true)]);
    const { planner } = simulationBase(snapshot, catalog);
    const p = pod({ name: 'p', cpu: '1' });
    expect(planner.plan([p]).placements).toEqual([{ node: 'a', pods: [p] }]);
    expect(planner.plan([p], new Set(['a'])).placements).toEqual([{ node: 'b', pods: [p] }]);
    expect(planner.plan([p], new Set(['a', 'b'])).nodeClaims).toHaveLength(1);
  });

  it('names no Node without a providerID, and names a NodeClaim not launched yet (it may never launch)', () => {
    const [node, claim] = member('starting', false);
    const bare = stateNode({ name: 'bare', nodePool: 'default', lifecycle: { ready: true } });
    const unlaunched = nodeClaim({ name: 'claim-unlaunched', status: {} });
    const snapshot = { ...snapshotOf([[node, claim]]), nodes: [node, bare], nodeClaims: [claim, unlaunched] };
    expect([...simulationBase(snapshot, catalog).uninitialized]).toEqual(['starting', 'claim-unlaunched']);
  });

  it('plans as if the offerings EC2 recently refused were not there, as the provisioner does', () => {
    // Karpenter's simulation schedules with the provisioner's instance types (helpers.go
    // `SimulateScheduling` → provisioner.go `NewScheduler`), whose offerings the
    // UnavailableOfferings cache marks unavailable (aws instancetype.go `createOfferings`).
    const snapshot = snapshotOf([]);
    const p = pod({ name: 'p', cpu: '1' });
    const [first] = simulationBase(snapshot, catalog).planner.plan([p]).nodeClaims;
    const refused = offeringKey(first.instanceType, first.zone, first.capacityType);
    const later = snapshotOf([], { unavailableOfferings: new Set([refused]) });
    const [next] = simulationBase(later, catalog).planner.plan([p]).nodeClaims;
    expect(offeringKey(next.instanceType, next.zone, next.capacityType)).not.toBe(refused);
  });
});
