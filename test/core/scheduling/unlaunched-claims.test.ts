import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../../../shared/core/model/labels';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod } from '../../../shared/core/model/pod';
import { maxResources, type Resources } from '../../../shared/core/model/resources';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import type { NodeClaimPlan, SchedulingResult } from '../../../shared/core/scheduling/types';
import { schedulingCapacity } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pods } from '../../../sim/world/builders';
import { instanceType, realNode, schedulingInput, sumRequests } from './fixtures';

/**
 * A NodeClaim created but whose launch is not recorded yet (throttled CreateFleet, or the
 * launch's record refused by the API server), as the scheduler sees it through
 * `schedulingCapacity`. Karpenter's scheduler subtracts the largest of a new NodeClaim's
 * instance type options from its NodePool's remaining resources (kubernetes-sigs/karpenter
 * pkg/controllers/provisioning/scheduling/scheduler.go `add` → `subtractMax`), and plans nothing
 * more while a NodeClaim has no providerID (pkg/controllers/state/cluster.go `Synced`). podlift
 * keeps planning, so the claim keeps what the scheduler gave it: the largest type its
 * requirements allow under the limits, and the pods it was sized for.
 */

/** A claim of NodePool `pool` for `forPods`, whose options are `types`, not launched. */
function unlaunched(
  name: string,
  pool: NodePool,
  forPods: readonly Pod[],
  types: readonly string[],
): NodeClaim {
  return nodeClaim({
    name,
    nodePool: pool.name,
    zones: ['us-east-1a'],
    capacityTypes: ['on-demand'],
    requirements: [{ key: LABEL_INSTANCE_TYPE, operator: 'In', values: [...types] }],
    requests: sumRequests(forPods),
  });
}

/** The scheduler's run over Nodes `nodes` and NodeClaims `claims` for `pending`. */
function run(
  pool: NodePool,
  nodes: readonly StateNode[],
  claims: readonly NodeClaim[],
  pending: readonly Pod[],
) {
  const capacity = schedulingCapacity({ nodes, nodeClaims: claims, daemonSets: [] });
  return schedule(schedulingInput({ nodePools: [pool], nodes: capacity, pods: pending }));
}

/** The largest capacity among a plan's options: what it counts against its NodePool's limits. */
function largest(plan: NodeClaimPlan): Resources {
  return plan.instanceTypeOptions.reduce<Resources>(
    (acc, o) => maxResources(acc, instanceType(o.name).capacity),
    {},
  );
}

const reasons = (r: SchedulingResult) => [...new Set(r.unschedulable.map((u) => u.reason))];

describe('schedule with a NodeClaim whose launch is not recorded', () => {
  // The soak's case: limits.cpu 64, 48 vCPU running, a claim made for one pod and throttled.
  const pool = nodePool({ limits: { cpu: 64 } });
  const running = realNode({
    name: 'big',
    instanceType: 'm5.12xlarge',
    zone: 'us-east-1a',
    nodePool: pool,
    pods: pods(1, { name: 'old', cpu: '47', nodeName: 'big' }),
  });
  const [held] = pods(1, { name: 'held', cpu: '3' });
  const [other] = pods(1, { name: 'other', cpu: '1' });

  it('counts the largest type its requirements allow against the limits, so nothing more launches', () => {
    // m5.4xlarge: 16 vCPU; 48 + 16 = 64 leaves no room for another NodeClaim.
    const claim = unlaunched('default-psk6l', pool, [held], ['m5.xlarge', 'm5.4xlarge']);
    const r = run(pool, [running], [claim], [held, other]);
    expect(r.placements).toEqual([{ node: 'default-psk6l', pods: [held] }]);
    expect(r.nodeClaims).toEqual([]);
    expect(reasons(r)).toEqual(['NodePool default: limit cpu=64 reached']);
  });

  it('leaves the limits what its largest type does not take', () => {
    // m5.xlarge: 4 vCPU; 48 + 4 leaves 12 for a NodeClaim of the other pod.
    const claim = unlaunched('default-psk6l', pool, [held], ['m5.xlarge']);
    const r = run(pool, [running], [claim], [held, other]);
    expect(r.placements).toEqual([{ node: 'default-psk6l', pods: [held] }]);
    expect(r.nodeClaims.map((c) => c.pods)).toEqual([[other]]);
    expect(largest(r.nodeClaims[0]).cpu).toBeLessThanOrEqual(12_000);
    expect(r.unschedulable).toEqual([]);
  });

  it('counts at least its requests when its requirements allow no type the NodePool knows', () => {
    const [x] = pods(1, { name: 'x', cpu: '16' });
    const claim = unlaunched('default-gone', pool, [x], ['m0.gone']);
    const r = run(pool, [running], [claim], [x, other]);
    expect(r.placements).toEqual([{ node: 'default-gone', pods: [x] }]);
    expect(r.nodeClaims).toEqual([]);
    expect(reasons(r)).toEqual(['NodePool default: limit cpu=64 reached']);
  });

  it('counts as one node under a nodes limit', () => {
    const one = nodePool({ limits: { nodes: 1 } });
    const claim = unlaunched('default-psk6l', one, [held], ['m5.xlarge']);
    const r = run(one, [], [claim], [held, other]);
    expect(r.placements).toEqual([{ node: 'default-psk6l', pods: [held] }]);
    expect(reasons(r)).toEqual(['NodePool default: limit nodes=1 reached']);
  });

  it('is counted only against its own NodePool', () => {
    const mine = nodePool({ name: 'mine', limits: { cpu: 8 } });
    const claim = unlaunched('other-1', nodePool({ name: 'other' }), [held], ['m5.4xlarge']);
    const r = run(mine, [], [claim], [held, other]);
    expect(r.placements).toEqual([{ node: 'other-1', pods: [held] }]);
    expect(r.nodeClaims.map((c) => [c.nodePool, c.pods])).toEqual([['mine', [other]]]);
  });

  describe('the pods it was made for', () => {
    const free = nodePool();
    const two = pods(2, { name: 'web', cpu: '1' });

    it('are placed on it, not on a new NodeClaim', () => {
      const claim = unlaunched('default-a', free, two, ['m5.large', 'm5.xlarge']);
      const r = run(free, [], [claim], two);
      expect(r.placements).toEqual([{ node: 'default-a', pods: two }]);
      expect(r.nodeClaims).toEqual([]);
    });

    it('take only the room its requests give: a third pod gets a NodeClaim of its own', () => {
      const claim = unlaunched('default-a', free, two, ['m5.large', 'm5.xlarge']);
      const [third] = pods(1, { name: 'third', cpu: '1' });
      const r = run(free, [], [claim], [...two, third]);
      expect(r.placements.flatMap((p) => p.pods)).toHaveLength(2);
      expect(r.nodeClaims.flatMap((c) => c.pods)).toHaveLength(1);
    });

    it('are not placed on it by a label its requirements leave open (podlift does not guess the zone it launches in)', () => {
      const [zonal] = pods(1, { name: 'zonal', cpu: '1', nodeSelector: { [LABEL_ZONE]: 'us-east-1a' } });
      const open = nodeClaim({
        name: 'default-open',
        zones: ['us-east-1a', 'us-east-1b'],
        requests: sumRequests([zonal]),
      });
      const r = run(free, [], [open], [zonal]);
      expect(r.placements).toEqual([]);
      expect(r.nodeClaims.map((c) => c.pods)).toEqual([[zonal]]);
    });
  });
});

describe('schedule with NodeClaims whose launch is not recorded (property)', () => {
  const TYPES = ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge'];
  const claimSpec = fc.record({
    // Its options: the types from `smallest` up to `smallest + spread`.
    smallest: fc.integer({ min: 0, max: 3 }),
    spread: fc.integer({ min: 0, max: 3 }),
    pods: fc.integer({ min: 1, max: 3 }),
  });
  const scenario = fc.record({
    limit: fc.integer({ min: 4, max: 48 }),
    claims: fc.array(claimSpec, { minLength: 1, maxLength: 3 }),
    extra: fc.integer({ min: 0, max: 12 }),
    extraCpuM: fc.integer({ min: 1, max: 6 }).map((n) => n * 500),
  });

  it('launches no more than the limits leave once each counts its largest option', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const pool = nodePool({ limits: { cpu: s.limit } });
        const claims = s.claims.map((c, i) => {
          const options = TYPES.slice(c.smallest, Math.min(TYPES.length, c.smallest + c.spread + 1));
          // Pods of 500m that fit the smallest option with room to spare.
          const mine = pods(c.pods, { name: `c${i}`, cpu: '500m' });
          return { claim: unlaunched(`default-c${i}`, pool, mine, options), options, mine };
        });
        const extra = pods(s.extra, { name: 'extra', cpu: `${s.extraCpuM}m` });
        const r = run(
          pool,
          [],
          claims.map((c) => c.claim),
          [...claims.flatMap((c) => c.mine), ...extra],
        );
        const held = claims.reduce(
          (sum, c) => sum + Math.max(...c.options.map((o) => instanceType(o).capacity.cpu ?? 0)),
          0,
        );
        const launched = r.nodeClaims.reduce((sum, c) => sum + (largest(c).cpu ?? 0), 0);
        expect(launched).toBeLessThanOrEqual(Math.max(0, s.limit * 1000 - held));
        // Every pod is accounted for once: on a claim (its own or another's pods, which one
        // takes the room does not matter), on a new NodeClaim, or unschedulable.
        const accounted =
          r.placements.flatMap((p) => p.pods).length +
          r.nodeClaims.flatMap((c) => c.pods).length +
          r.unschedulable.length;
        expect(accounted).toBe(claims.flatMap((c) => c.mine).length + extra.length);
      }),
      { seed: 20_261_127, numRuns: 60 },
    );
  });
});
