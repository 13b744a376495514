import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../../shared/core/catalog/instance-type';
import { disruptionCandidates } from '../../../shared/core/disruption/candidates';
import { decideDisruption } from '../../../shared/core/disruption/decide';
import {
  computeConsolidation,
  multiNodeConsolidation,
  simulateConsolidation,
} from '../../../shared/core/disruption/methods';
import {
  DEFAULT_CONSOLIDATION_SETTINGS,
  MIN_SPOT_TO_SPOT_OPTIONS,
  replacementOptions,
} from '../../../shared/core/disruption/replacement-options';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import { type NodeSelectorRequirement, Requirement } from '../../../shared/core/model/requirements';
import type { ClusterSnapshot } from '../../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodeClass, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { catalog, condition, snapshotOf, T0 } from './snapshot';

// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go `computeConsolidation`,
// `computeSpotToSpotConsolidation`; multinodeconsolidation.go `filterOutSameInstanceType`;
// scheduling/nodeclaim.go `RemoveInstanceTypeOptionsByPriceAndMinValues`. Cases follow
// consolidation_test.go's "Replace" and "Spot to spot" contexts.

/** A registered, initialized node of NodePool default, of `type` (4 cpu), costing `price` an hour. */
function member(
  name: string,
  pods: readonly Pod[],
  { price = 0.192, capacityType = 'on-demand', type = 'm5.xlarge' } = {},
): [StateNode, NodeClaim] {
  const providerID = `aws:///us-east-1a/i-${name.padStart(17, '0')}`;
  return [
    stateNode({
      name,
      nodePool: 'default',
      allocatable: { cpu: '3920m', memory: '14Gi', pods: 58 },
      pods: pods.map((p) => ({ ...p, nodeName: name })),
      lifecycle: { providerID, ready: true },
    }),
    nodeClaim({
      name: `claim-${name}`,
      creationTimestamp: new Date(T0).toISOString(),
      labels: { 'karpenter.sh/capacity-type': capacityType, 'node.kubernetes.io/instance-type': type },
      annotations: { 'podlift.dev/hourly-price': String(price) },
      status: { providerID, conditions: [condition('Initialized'), condition('Consolidatable')] },
    }),
  ];
}

const web = (name: string, cpu = '250m') => pod({ name, cpu, memory: '512Mi', ownerKind: 'ReplicaSet' });
const capacity = (...values: string[]): NodeSelectorRequirement => ({
  key: 'karpenter.sh/capacity-type',
  operator: 'In',
  values,
});
const types = (values: string[], minValues?: number): NodeSelectorRequirement => ({
  key: 'node.kubernetes.io/instance-type',
  operator: 'In',
  values,
  ...(minValues !== undefined ? { minValues } : {}),
});

function world(
  members: readonly [StateNode, NodeClaim][],
  requirements: NodeSelectorRequirement[],
  more: Partial<ClusterSnapshot> = {},
): ClusterSnapshot {
  return snapshotOf(members, {
    nodePools: [nodePool({ requirements, budgets: [{ nodes: '100%' }] })],
    ...more,
  });
}

const onlyCandidate = (s: ClusterSnapshot) => disruptionCandidates(s)[0];
const gateOn = { spotToSpotConsolidation: true };

describe('replacement options: cheaper than the candidates', () => {
  it('offers only types whose launch price is below the candidate, cheapest first, and pins the NodeClaim to them', () => {
    const s = world([member('a', [web('a1')])], [capacity('on-demand')]);
    const result = simulateConsolidation(onlyCandidate(s), s);
    if (result?.action !== 'replace') throw new Error(`expected a replacement, got ${result?.action}`);
    const prices = result.plans[0].instanceTypeOptions.map((o) => o.price);
    expect(Math.max(...prices)).toBeLessThan(0.192);
    expect(prices).toStrictEqual([...prices].sort((x, y) => x - y));
    expect(result.plans[0].instanceTypeOptions.map((o) => o.name)).not.toContain('m5.xlarge');
    expect(
      [...(result.plans[0].requirements.get('node.kubernetes.io/instance-type')?.values ?? [])].sort(),
    ).toStrictEqual(result.plans[0].instanceTypeOptions.map((o) => o.name).sort());
    expect(result.plans[0].price).toBe(prices[0]);
    expect(result.savings).toBeCloseTo(0.192 - prices[0], 9);
  });

  it("won't replace when every option's worst launch price is dearer (\"won't replace node if any spot replacement is more expensive\")", () => {
    // t3.small is cheap in one zone and dear in another; EC2 may pick either zone.
    const spot = new Map(catalog.prices.spot);
    spot.set(
      't3.small',
      new Map([...(spot.get('t3.small') ?? [])].map(([z, p]) => [z, z === 'us-east-1c' ? 0.5 : p])),
    );
    const dear: Catalog = { ...catalog, prices: { ...catalog.prices, spot } };
    const pool = [capacity('spot', 'on-demand'), types(['t3.small'])];
    const s = world([member('a', [web('a1')], { price: 0.1 })], pool, { catalog: dear });
    expect(computeConsolidation([onlyCandidate(s)], s)).toStrictEqual({
      action: 'none',
      why: "Can't replace with a cheaper node",
    });
    const fair = world([member('a', [web('a1')], { price: 0.1 })], pool);
    expect(simulateConsolidation(onlyCandidate(fair), fair)?.action).toBe('replace');
  });

  it('does not consolidate when the cheaper options no longer satisfy minValues', () => {
    // Cheaper than m5.xlarge: t3.small and t3.medium only — 2 types where minValues asks for 3.
    const pool = [capacity('on-demand'), types(['t3.small', 't3.medium', 'm5.xlarge', 'm5.2xlarge'], 3)];
    const s = world([member('a', [web('a1')])], pool);
    expect(computeConsolidation([onlyCandidate(s)], s)).toStrictEqual({
      action: 'none',
      why: 'Filtering by price: minValues requirement is not met for label(s) node.kubernetes.io/instance-type',
    });
    const two = world(
      [member('a', [web('a1')])],
      [capacity('on-demand'), types(['t3.small', 't3.medium', 'm5.xlarge'], 2)],
    );
    const result = simulateConsolidation(onlyCandidate(two), two);
    expect(
      result?.action === 'replace' && result.plans[0].instanceTypeOptions.map((o) => o.name),
    ).toStrictEqual(['t3.small', 't3.medium']);
  });
});

describe('replacement options: the launch price of each option', () => {
  it("prices a spot option by its spot offerings only, not the type's dearer on-demand ones", () => {
    // m5.large: spot $0.033 below the candidate's $0.05, on-demand $0.096 above it.
    const s = world(
      [member('a', [web('a1')], { price: 0.05 })],
      [capacity('spot', 'on-demand'), types(['m5.large'])],
    );
    const result = simulateConsolidation(onlyCandidate(s), s);
    expect(
      result?.action === 'replace' &&
        result.plans[0].instanceTypeOptions.map((o) => [o.name, o.capacityType]),
    ).toStrictEqual([['m5.large', 'spot']]);
  });

  it('treats a NodePool without a capacity-type requirement as allowing spot', () => {
    const spot = member('a', [web('a1')], { price: 0.2, capacityType: 'spot' });
    const s = world([spot], [types(['t3.medium', 'm5.large'])]);
    expect(computeConsolidation([onlyCandidate(s)], s)).toStrictEqual({
      action: 'none',
      why: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    });
  });

  it('is no spot-to-spot move when one candidate is on-demand', () => {
    const pool = [capacity('spot', 'on-demand'), types(['t3.small', 't3.medium', 'm5.xlarge'])];
    const members = [
      member('a', [web('a1', '700m')], { price: 0.065, capacityType: 'spot' }),
      member('b', [web('b1', '700m')], { price: 0.192 }),
    ];
    const s = world(members, pool);
    expect(computeConsolidation(disruptionCandidates(s), s).action).toBe('replace');
  });
});

describe('replacement options: spot to spot', () => {
  const spotPool = [capacity('spot')];
  const spotMember = (price = 0.2) => member('a', [web('a1')], { price, capacityType: 'spot' });

  it('replaces no spot node by a spot node with the gate off, and says so as Karpenter does', () => {
    const s = world([spotMember()], spotPool);
    expect(computeConsolidation([onlyCandidate(s)], s)).toStrictEqual({
      action: 'none',
      why: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    });
    const { command, unconsolidatable } = decideDisruption(s, T0 + 60_000);
    expect(command).toBeUndefined();
    expect(unconsolidatable).toContainEqual({
      nodeClaim: 'claim-a',
      node: 'a',
      why: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    });
  });

  it('still replaces an on-demand node by spot with the gate off', () => {
    const s = world([member('a', [web('a1')])], [capacity('spot', 'on-demand')]);
    const result = simulateConsolidation(onlyCandidate(s), s);
    expect(result?.action === 'replace' && result.plans[0].capacityType).toBe('spot');
    expect(
      result?.action === 'replace' && result.plans[0].requirements.get('karpenter.sh/capacity-type')?.values,
    ).toStrictEqual(new Set(['spot']));
  });

  it('with the gate on, launches only the 15 cheapest of at least 15 cheaper spot types', () => {
    const s = world([spotMember()], spotPool);
    const result = simulateConsolidation(onlyCandidate(s), s, gateOn);
    if (result?.action !== 'replace') throw new Error('expected a replacement');
    expect(result.plans[0].instanceTypeOptions).toHaveLength(MIN_SPOT_TO_SPOT_OPTIONS);
    expect(result.plans[0].instanceTypeOptions.every((o) => o.capacityType === 'spot' && o.price < 0.2)).toBe(
      true,
    );
    const unfiltered = computeConsolidation([onlyCandidate(s)], s, gateOn);
    expect(unfiltered.action).toBe('replace');
    const { command } = decideDisruption(s, T0 + 60_000, gateOn);
    expect(command).toMatchObject({ method: 'consolidation', candidates: ['claim-a'], replace: true });
  });

  it('needs 15 cheaper spot options ("cannot replace spot with spot if less than minimum InstanceTypes flexibility")', () => {
    const s = world([spotMember()], [capacity('spot'), types(['t3.small', 't3.medium', 'm5.xlarge'])]);
    expect(computeConsolidation([onlyCandidate(s)], s, gateOn)).toStrictEqual({
      action: 'none',
      why: 'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 3',
    });
  });

  it('launches as many as minValues needs when that is more than 15', () => {
    const wide = simulateConsolidation(
      onlyCandidate(world([spotMember(1)], spotPool)),
      world([spotMember(1)], spotPool),
      gateOn,
    );
    if (wide?.action !== 'replace') throw new Error('expected a replacement');
    const names = wide.plans[0].instanceTypeOptions.map((o) => o.name);
    expect(names.length).toBe(15);
    // The same NodePool asking for 20 distinct types among the cheapest: 20 are launched.
    const many = world(
      [spotMember(1)],
      [capacity('spot'), { key: 'node.kubernetes.io/instance-type', operator: 'Exists', minValues: 20 }],
    );
    const result = simulateConsolidation(onlyCandidate(many), many, gateOn);
    expect(result?.action === 'replace' && result.plans[0].instanceTypeOptions.length).toBe(20);
  });

  it('moves several spot nodes to one spot node without the 15-option rule, gate on only', () => {
    const pool = [capacity('spot'), types(['t3.small', 't3.medium', 'm5.xlarge'])];
    const members = ['a', 'b'].map((n) =>
      member(n, [web(`${n}1`, '700m')], { price: 0.065, capacityType: 'spot' }),
    );
    const s = world(members, pool);
    const both = disruptionCandidates(s);
    expect(computeConsolidation(both, s).action).toBe('none');
    const result = computeConsolidation(both, s, gateOn);
    if (result.action !== 'replace') throw new Error('expected a replacement');
    // Fewer than 15 options, and not the candidates' own m5.xlarge (filterOutSameInstanceType).
    const names = result.plans[0].instanceTypeOptions.map((o) => o.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names).not.toContain('m5.xlarge');
    expect(result.plans[0].instanceTypeOptions.every((o) => o.capacityType === 'spot')).toBe(true);
  });

  it("splits one spot node over several spot nodes without the 15-option rule (global consolidation's move)", () => {
    // Two 1.5-cpu pods: a t3.small (2 cpu) each. With one replacement allowed the plan needs two
    // and Karpenter's move is none; with two, each part is narrowed below half the node's price
    // from 3 types, not held to the 15 cheaper options a one-for-one spot move needs.
    const pool = [capacity('spot'), types(['t3.small', 't3.medium', 'm5.xlarge'])];
    const s = world(
      [member('a', [web('a1', '1500m'), web('a2', '1500m')], { price: 0.065, capacityType: 'spot' })],
      pool,
    );
    const candidate = [onlyCandidate(s)];
    expect(computeConsolidation(candidate, s, gateOn)).toStrictEqual({
      action: 'none',
      why: "Can't remove without creating 2 candidates",
    });
    const split = computeConsolidation(candidate, s, gateOn, 2);
    if (split.action !== 'replace') throw new Error('expected a replacement');
    expect(split.plans.map((p) => p.instanceTypeOptions.map((o) => [o.name, o.capacityType]))).toStrictEqual([
      [
        ['t3.small', 'spot'],
        ['t3.medium', 'spot'],
      ],
      [
        ['t3.small', 'spot'],
        ['t3.medium', 'spot'],
      ],
    ]);
  });
});

describe('replacement options: multi-node consolidation', () => {
  // multinodeconsolidation.go `filterOutSameInstanceType`: NodeClaims=[t3a.2xlarge, t3a.2xlarge,
  // t3a.small] -> 1 of t3a.small, … is "equivalent to just deleting" the others.
  const pool = [capacity('on-demand'), types(['m5.xlarge', 'm5.2xlarge'])];
  const three = ['a', 'b', 'c'].map((n) => member(n, [web(`${n}1`, '1')]));

  it('deletes two of three under-used m5.xlarge instead of replacing all three by a new m5.xlarge', () => {
    const s = world(three, pool);
    const all = disruptionCandidates(s);
    expect(computeConsolidation(all, s)).toStrictEqual({
      action: 'none',
      why: "Can't replace with a cheaper node",
    });
    const found = multiNodeConsolidation(all, s);
    expect(found?.candidates.map((c) => c.claim.name)).toStrictEqual(['claim-a', 'claim-b']);
    expect(found?.consolidation).toStrictEqual({ action: 'delete', savings: 0.384 });
  });

  it('keeps a replacement cheaper than the cheapest candidate of a type it offers', () => {
    const cheapPool = [capacity('on-demand'), types(['m5.large', 'm5.xlarge'])];
    const members = [
      member('a', [web('a1', '1')]),
      member('b', [web('b1', '700m')], { price: 0.096, type: 'm5.large' }),
    ];
    const s = world(members, cheapPool);
    // Both pods (1.7 cpu) fit an m5.large, which b already is: not cheaper than b, no replacement.
    expect(computeConsolidation(disruptionCandidates(s), s)).toStrictEqual({
      action: 'none',
      why: "Can't replace with a cheaper node",
    });
  });
});

describe('replacement options: more cases', () => {
  it("defaults to Karpenter's feature gates: SpotToSpotConsolidation off (operator/options.go)", () => {
    expect(DEFAULT_CONSOLIDATION_SETTINGS).toStrictEqual({ spotToSpotConsolidation: false });
  });

  it('names every label whose minValues the cheaper options miss', () => {
    const pool = [
      capacity('on-demand'),
      types(['t3.small', 't3.medium', 'm5.xlarge', 'm5.2xlarge'], 3),
      {
        key: 'karpenter.k8s.aws/instance-family',
        operator: 'Exists',
        minValues: 2,
      } as NodeSelectorRequirement,
    ];
    const s = world([member('a', [web('a1')])], pool);
    const result = computeConsolidation([onlyCandidate(s)], s);
    expect(result.action === 'none' && result.why).toMatch(
      /^Filtering by price: minValues requirement is not met for label\(s\) (node\.kubernetes\.io\/instance-type, karpenter\.k8s\.aws\/instance-family|karpenter\.k8s\.aws\/instance-family, node\.kubernetes\.io\/instance-type)$/,
    );
  });

  it('keeps spot options only for a spot-to-spot move even where the NodePool allows on-demand', () => {
    // consolidation.go computeSpotToSpotConsolidation: "Filter out any non-spot instance types".
    const s = world(
      [member('a', [web('a1')], { price: 1, capacityType: 'spot' })],
      [capacity('spot', 'on-demand')],
    );
    const result = simulateConsolidation(onlyCandidate(s), s, gateOn);
    if (result?.action !== 'replace') throw new Error('expected a replacement');
    expect(result.plans[0].instanceTypeOptions.map((o) => o.capacityType)).toStrictEqual(
      Array(MIN_SPOT_TO_SPOT_OPTIONS).fill('spot'),
    );
    // Several candidates launch every cheaper option, not 15: an on-demand option in the plan
    // (a type without an available spot offering) must not stay.
    const pool = [capacity('spot', 'on-demand'), types(['t3.small', 't3.medium', 'm5.large', 'm5.xlarge'])];
    const two = world(
      ['a', 'b'].map((n) => member(n, [web(`${n}1`, '700m')], { price: 0.2, capacityType: 'spot' })),
      pool,
    );
    const candidates = disruptionCandidates(two);
    const several = computeConsolidation(candidates, two, gateOn);
    if (several.action !== 'replace') throw new Error('expected a replacement');
    const onDemand = {
      name: 't3.medium',
      price: 0.0416,
      capacityType: 'on-demand' as const,
      zone: 'us-east-1a',
    };
    const mixed = {
      ...several.plans[0],
      instanceTypeOptions: [...several.plans[0].instanceTypeOptions, onDemand],
    };
    const kept = replacementOptions(candidates, mixed, two, gateOn);
    expect('plan' in kept && kept.plan.instanceTypeOptions).toStrictEqual(
      several.plans[0].instanceTypeOptions,
    );
  });

  it('replaces a spot node by spot with exactly 15 cheaper spot options', () => {
    const wide = world([member('a', [web('a1')], { price: 1, capacityType: 'spot' })], [capacity('spot')]);
    const first = simulateConsolidation(onlyCandidate(wide), wide, gateOn);
    if (first?.action !== 'replace') throw new Error('expected a replacement');
    const fifteen = first.plans[0].instanceTypeOptions.map((o) => o.name);
    const s = world(
      [member('a', [web('a1')], { price: 1, capacityType: 'spot' })],
      [capacity('spot'), types(fifteen)],
    );
    const result = simulateConsolidation(onlyCandidate(s), s, gateOn);
    expect(
      result?.action === 'replace' && result.plans[0].instanceTypeOptions.map((o) => o.name),
    ).toStrictEqual(fifteen);
  });

  it('rejects a multi-node replacement whose options under the same-type ceiling miss minValues', () => {
    // multinodeconsolidation.go filterOutSameInstanceType returns RemoveInstanceTypeOptionsByPriceAndMinValues' error.
    const pool = [capacity('on-demand'), types(['t3.medium', 'm5.large', 'm5.xlarge'], 3)];
    const members = [
      member('a', [web('a1', '500m')]),
      member('b', [web('b1', '500m')], { price: 0.096, type: 'm5.large' }),
    ];
    const s = world(members, pool);
    expect(computeConsolidation(disruptionCandidates(s), s)).toStrictEqual({
      action: 'none',
      why: 'Filtering by price: minValues requirement is not met for label(s) node.kubernetes.io/instance-type',
    });
  });

  it('takes the cheapest candidate of an offered type as the ceiling, whatever the order', () => {
    const pool = [capacity('on-demand'), types(['m5.large', 'm5.xlarge'])];
    const members = [
      member('a', [web('a1', '1')]),
      member('b', [web('b1', '700m')], { price: 0.096, type: 'm5.large' }),
    ];
    const s = world(members, pool);
    const candidates = disruptionCandidates(s);
    for (const order of [candidates, [...candidates].reverse()])
      expect(computeConsolidation(order, s).action).toBe('none');
  });

  it('ignores, for the same-type ceiling, a cheaper candidate whose type is not offered', () => {
    const pool = [capacity('on-demand'), types(['m5.large', 'm5.xlarge'])];
    const members = [
      member('a', [web('a1', '1')]),
      member('b', [web('b1', '700m')], { price: 0.085, type: 'c5.large' }),
    ];
    const s = world(members, pool);
    const candidates = disruptionCandidates(s);
    for (const order of [candidates, [...candidates].reverse()]) {
      const result = computeConsolidation(order, s);
      expect(
        result.action === 'replace' && result.plans[0].instanceTypeOptions.map((o) => o.name),
      ).toStrictEqual(['m5.large']);
    }
  });

  /** A real replacement plan for one on-demand candidate, to hand-edit. */
  function planned() {
    const s = world([member('a', [web('a1')], { price: 0.05 })], [capacity('on-demand')]);
    const result = simulateConsolidation(onlyCandidate(s), s);
    if (result?.action !== 'replace') throw new Error('expected a replacement');
    return { s, candidate: onlyCandidate(s), plan: result.plans[0] };
  }

  it("prices an option by its own price when its type is not in the node class's catalog", () => {
    const { s, candidate, plan } = planned();
    const unknown = {
      name: 'x9.unknown',
      price: 0.01,
      capacityType: 'on-demand' as const,
      zone: 'us-east-1a',
    };
    const dear = { ...unknown, name: 'x9.dear', price: 0.06 };
    const edited = { ...plan, instanceTypeOptions: [unknown, dear] };
    for (const snapshot of [s, { ...s, catalog: undefined }])
      expect(replacementOptions([candidate], edited, snapshot, DEFAULT_CONSOLIDATION_SETTINGS)).toMatchObject(
        {
          plan: { instanceTypeOptions: [unknown] },
        },
      );
    // Nor does such a type bring any label value towards minValues (SatisfiesMinValues counts
    // the values the types' requirements define).
    const withMin = {
      ...edited,
      requirements: plan.requirements.with(
        Requirement.of('node.kubernetes.io/instance-type', 'Exists', [], 1),
      ),
    };
    expect(replacementOptions([candidate], withMin, s, DEFAULT_CONSOLIDATION_SETTINGS)).toStrictEqual({
      why: 'Filtering by price: minValues requirement is not met for label(s) node.kubernetes.io/instance-type',
    });
  });

  it("resolves the options' types for the plan's own node class", () => {
    // m4.large (Xen, $0.10 on demand) cannot launch for a node class with connectionTracking
    // (nodeclass-compatibility.ts), so for that class it is priced by the option's own price.
    const { s, candidate, plan } = planned();
    const tracked = { ...nodeClass({ name: 'tracked' }), connectionTracking: {} };
    const snapshot = { ...s, nodeClasses: [nodeClass(), tracked] };
    const m4 = { name: 'm4.large', price: 0.01, capacityType: 'on-demand' as const, zone: 'us-east-1a' };
    const options = (nodeClassName: string) =>
      replacementOptions(
        [candidate],
        { ...plan, nodeClass: nodeClassName, instanceTypeOptions: [m4] },
        snapshot,
        DEFAULT_CONSOLIDATION_SETTINGS,
      );
    expect('plan' in options('tracked') && options('tracked')).toMatchObject({
      plan: { instanceType: 'm4.large' },
    });
    expect(options('default')).toStrictEqual({ why: "Can't replace with a cheaper node" });
  });
});
