import { describe, expect, it } from 'vitest';
import {
  candidatePrice,
  disruptionCandidates,
  withReschedulablePods,
} from '../../../shared/core/disruption/candidates';
import { unconsolidatableBecause } from '../../../shared/core/disruption/decide';
import type { NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { PodDisruptionBudget } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { catalog, snapshotOf, T0 } from './snapshot';

const TYPE = 'node.kubernetes.io/instance-type';
const ZONE = 'topology.kubernetes.io/zone';
const CAPACITY = 'karpenter.sh/capacity-type';
const labelled = (labels: Record<string, string>, annotations: Record<string, string> = {}) =>
  nodeClaim({ labels, annotations });
const noNodeLabels = { labels: {} };
const onDemandPrice = catalog.prices.onDemand.get('m5.large') as number;
const spotPrice = catalog.prices.spot.get('m5.large')?.get('us-east-1b') as number;

// kubernetes-sigs/karpenter pkg/controllers/disruption/types.go `resolveNodePrice`: a candidate's
// price is its offering's, found by the node's zone and capacity-type labels on its instance type.
describe('candidatePrice', () => {
  it("takes the price podlift recorded at launch before the catalog's", () => {
    const claim = labelled(
      { [TYPE]: 'm5.large', [ZONE]: 'us-east-1a', [CAPACITY]: 'on-demand' },
      {
        'podlift.dev/hourly-price': '0.5',
      },
    );
    expect(candidatePrice(claim, noNodeLabels, catalog)).toStrictEqual({ price: 0.5 });
  });

  it('prices a claim without the annotation from the catalog: on-demand by type, spot by type and zone', () => {
    const od = labelled({ [TYPE]: 'm5.large', [ZONE]: 'us-east-1a', [CAPACITY]: 'on-demand' });
    const spot = labelled({ [TYPE]: 'm5.large', [ZONE]: 'us-east-1b', [CAPACITY]: 'spot' });
    expect(onDemandPrice).toBeGreaterThan(spotPrice);
    expect(candidatePrice(od, noNodeLabels, catalog)).toStrictEqual({ price: onDemandPrice });
    expect(candidatePrice(spot, noNodeLabels, catalog)).toStrictEqual({ price: spotPrice });
    // An unreadable or zero annotation is no price either.
    const zero = labelled(
      { [TYPE]: 'm5.large', [ZONE]: 'us-east-1a', [CAPACITY]: 'on-demand' },
      {
        'podlift.dev/hourly-price': '0',
      },
    );
    expect(candidatePrice(zero, noNodeLabels, catalog)).toStrictEqual({ price: onDemandPrice });
  });

  it("reads the Node's labels before the claim's, as Karpenter reads the StateNode's", () => {
    const claim = labelled({ [TYPE]: 'm5.xlarge', [ZONE]: 'us-east-1a', [CAPACITY]: 'on-demand' });
    const node = { labels: { [TYPE]: 'm5.large', [ZONE]: 'us-east-1b', [CAPACITY]: 'spot' } };
    expect(candidatePrice(claim, node, catalog)).toStrictEqual({ price: spotPrice });
  });

  it('leaves it unpriced, saying why in consolidation.go’s words, when the offering cannot be found', () => {
    const all = { [TYPE]: 'm5.large', [ZONE]: 'us-east-1a', [CAPACITY]: 'on-demand' };
    const without = (key: string) =>
      labelled(Object.fromEntries(Object.entries(all).filter(([k]) => k !== key)));
    expect(candidatePrice(without(TYPE), noNodeLabels, catalog)).toStrictEqual({
      price: 0,
      unpriced: 'Instance Type "" not found',
    });
    expect(candidatePrice(labelled({ ...all, [TYPE]: 'x9.huge' }), noNodeLabels, catalog)).toStrictEqual({
      price: 0,
      unpriced: 'Instance Type "x9.huge" not found',
    });
    expect(candidatePrice(without(CAPACITY), noNodeLabels, catalog)).toStrictEqual({
      price: 0,
      unpriced: 'Node does not have label "karpenter.sh/capacity-type"',
    });
    expect(candidatePrice(without(ZONE), noNodeLabels, catalog)).toStrictEqual({
      price: 0,
      unpriced: 'Node does not have label "topology.kubernetes.io/zone"',
    });
    expect(candidatePrice(labelled({ ...all, [CAPACITY]: 'reserved' }), noNodeLabels, catalog)).toStrictEqual(
      {
        price: 0,
        unpriced: 'the catalog has no reserved price for Instance Type "m5.large" in us-east-1a',
      },
    );
    expect(
      candidatePrice(labelled({ ...all, [CAPACITY]: 'spot', [ZONE]: 'mars-1a' }), noNodeLabels, catalog),
    ).toStrictEqual({
      price: 0,
      unpriced: 'the catalog has no spot price for Instance Type "m5.large" in mars-1a',
    });
    expect(candidatePrice(labelled(all), noNodeLabels, undefined)).toStrictEqual({
      price: 0,
      unpriced: 'no instance type catalog is loaded to price it',
    });
  });

  it('makes an unpriced candidate Unconsolidatable, and a priced one not', () => {
    const providerID = 'aws:///us-east-1a/i-00000000000000001';
    const node = stateNode({ name: 'a', nodePool: 'default', lifecycle: { providerID, ready: true } });
    const base = nodeClaim({
      name: 'claim-a',
      labels: { [TYPE]: 'x9.huge', [ZONE]: 'us-east-1a', [CAPACITY]: 'on-demand' },
      status: { providerID, conditions: [initialized] },
    });
    const [unpriced] = disruptionCandidates(snapshotOf([[node, base]]));
    expect([unpriced.price, unconsolidatableBecause(unpriced)]).toStrictEqual([
      0,
      'Instance Type "x9.huge" not found',
    ]);
    const known = { ...base, labels: { ...base.labels, [TYPE]: 'm5.large' } };
    const [priced] = disruptionCandidates(snapshotOf([[node, known]]));
    expect([priced.price, priced.unpriced, unconsolidatableBecause(priced)]).toStrictEqual([
      onDemandPrice,
      undefined,
      undefined,
    ]);
  });
});

const initialized = {
  type: 'Initialized',
  status: 'True' as const,
  reason: 'Initialized',
  message: '',
  lastTransitionTime: new Date(T0).toISOString(),
};

// kubernetes-sigs/karpenter pkg/controllers/disruption/types.go `NewCandidate`: for the eventual
// class with terminationGracePeriod set, `state.IgnorePodBlockEvictionError` drops the errors of
// statenode.go `ValidatePodsDisruptable` (do-not-disrupt pods, PDBs); `ValidateNodeDisruptable`
// (the Node's own annotation) runs before and is never ignored.
describe('disruptionCandidates: the eventual class', () => {
  const providerID = 'aws:///us-east-1a/i-00000000000000001';
  const guarded = {
    ...pod({ name: 'guarded', ownerKind: 'ReplicaSet', labels: { app: 'db' } }),
    annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
  };
  const plain = pod({ name: 'plain', ownerKind: 'ReplicaSet', labels: { app: 'db' } });
  const orphan = pod({ name: 'orphan' });
  const pdb: PodDisruptionBudget = {
    namespace: 'default',
    name: 'db',
    selector: { matchLabels: { app: 'db' } },
    disruptionsAllowed: 0,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
  };
  const candidate = (
    o: {
      pods?: ReturnType<typeof pod>[];
      grace?: string;
      nodeAnnotations?: Record<string, string>;
      replicas?: number;
      pdbs?: PodDisruptionBudget[];
    } = {},
  ) => {
    const node = stateNode({
      name: 'a',
      nodePool: 'default',
      pods: (o.pods ?? []).map((p) => ({ ...p, nodeName: 'a' })),
      lifecycle: {
        providerID,
        ready: true,
        ...(o.nodeAnnotations ? { annotations: o.nodeAnnotations } : {}),
      },
    });
    const base = nodeClaim({ name: 'claim-a', status: { providerID, conditions: [initialized] } });
    const claim: NodeClaim = o.grace
      ? { ...base, spec: { ...base.spec, terminationGracePeriod: o.grace } }
      : base;
    const [c] = disruptionCandidates(
      snapshotOf([[node, claim]], {
        nodePools: [nodePool(o.replicas !== undefined ? { replicas: o.replicas } : {})],
        podDisruptionBudgets: o.pdbs ?? [],
      }),
    );
    return [c.blocked, c.eventualBlocked];
  };

  it('ignores do-not-disrupt pods and PodDisruptionBudgets with a terminationGracePeriod, for drift only', () => {
    expect(candidate({ pods: [guarded], grace: '1h' })).toStrictEqual([
      'pod default/guarded has karpenter.sh/do-not-disrupt',
      undefined,
    ]);
    expect(candidate({ pods: [plain], grace: '1h', pdbs: [pdb] })).toStrictEqual([
      'PodDisruptionBudget default/db allows no eviction of pod default/plain',
      undefined,
    ]);
  });

  it('lets them block drift too without a terminationGracePeriod', () => {
    expect(candidate({ pods: [guarded] })).toStrictEqual([
      'pod default/guarded has karpenter.sh/do-not-disrupt',
      'pod default/guarded has karpenter.sh/do-not-disrupt',
    ]);
    expect(candidate({ pods: [plain], pdbs: [pdb] })[1]).toBe(
      'PodDisruptionBudget default/db allows no eviction of pod default/plain',
    );
  });

  it("keeps the Node's karpenter.sh/do-not-disrupt and a pod without a controller blocking drift", () => {
    expect(candidate({ grace: '1h', nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } })[1]).toBe(
      'the Node has karpenter.sh/do-not-disrupt',
    );
    expect(candidate({ grace: '1h', pods: [guarded, orphan] })[1]).toBe(
      'pod default/orphan has no controller',
    );
  });

  it('does not count a static NodePool as a block for drift, as it does for consolidation', () => {
    expect(candidate({ replicas: 1 })).toStrictEqual(['NodePool default is static', undefined]);
    expect(candidate({ replicas: 1, pods: [guarded] })).toStrictEqual([
      'NodePool default is static',
      'pod default/guarded has karpenter.sh/do-not-disrupt',
    ]);
  });
});

// pkg/utils/pdb/pdb.go `IsCurrentlyReschedulable` and `newPdb`'s isFullyBlocking.
describe('withReschedulablePods', () => {
  const providerID = 'aws:///us-east-1a/i-00000000000000001';
  const app = (name: string, labels: Record<string, string>, annotations?: Record<string, string>) => ({
    ...pod({ name, ownerKind: 'ReplicaSet', labels }),
    ...(annotations ? { annotations } : {}),
  });
  const budget = (name: string, app: string, spec: Partial<PodDisruptionBudget>): PodDisruptionBudget => ({
    namespace: 'default',
    name,
    selector: { matchLabels: { app } },
    disruptionsAllowed: 0,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
    ...spec,
  });
  it('keeps only pods that are disruptable and not blocked for good by a PodDisruptionBudget', () => {
    const pods = [
      app('free', { app: 'free' }),
      app('guarded', { app: 'free' }, { 'karpenter.sh/do-not-disrupt': 'true' }),
      app('max0', { app: 'max0' }),
      app('max0pct', { app: 'max0pct' }),
      app('min100', { app: 'min100' }),
      app('busy', { app: 'busy' }),
      app('two', { app: 'two' }),
    ];
    const budgets = [
      budget('a', 'max0', { maxUnavailable: 0 }),
      budget('b', 'max0pct', { maxUnavailable: '0%' }),
      budget('c', 'min100', { minAvailable: '100%' }),
      // Allows none now, but is not blocking for good: its pods get room.
      budget('d', 'busy', { maxUnavailable: 1, minAvailable: '50%' }),
      budget('e', 'two', { maxUnavailable: 1, disruptionsAllowed: 1 }),
      budget('f', 'two', { maxUnavailable: 1, disruptionsAllowed: 1 }),
      { ...budget('g', 'free', { maxUnavailable: 0 }), namespace: 'other' },
    ];
    const node = stateNode({ name: 'a', nodePool: 'default', pods, lifecycle: { providerID, ready: true } });
    const claim = nodeClaim({ name: 'claim-a', status: { providerID, conditions: [initialized] } });
    const [c] = disruptionCandidates(snapshotOf([[node, claim]]));
    expect(withReschedulablePods(c, budgets, T0).pods.map((p) => p.name)).toStrictEqual(['free', 'busy']);
  });
});
