import { describe, expect, it } from 'vitest';
import { simulationBase } from '../../../shared/core/disruption/simulation-base';
import { nodeClaim, pod, stateNode } from '../../../sim/world/builders';
import { catalog, snapshotOf, T0 } from './snapshot';

/** A registered Node of NodePool default and its NodeClaim, Initialized or not. */
function member(name: string, initialized: boolean) {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  const node = stateNode({
    name,
    nodePool: 'default',
    allocatable: { cpu: '3920m', memory: '14Gi', pods: 58 },
    lifecycle: { providerID, ready: true },
  });
  const condition = {
    type: 'Initialized',
    status: 'True' as const,
    reason: 'Initialized',
    message: '',
    lastTransitionTime: new Date(T0).toISOString(),
  };
  const claim = nodeClaim({
    name: `claim-${name}`,
    status: { providerID, conditions: initialized ? [condition] : [] },
  });
  return [node, claim] as const;
}

describe('simulationBase', () => {
  it('is built once per snapshot object and names the capacity not initialized yet', () => {
    const snapshot = snapshotOf([member('ready', true), member('starting', false)]);
    const base = simulationBase(snapshot, catalog);
    expect(simulationBase(snapshot, catalog)).toBe(base);
    expect([...base.uninitialized]).toEqual(['starting']);
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
});
