import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_FAMILY,
  LABEL_NODEPOOL,
  LABEL_ZONE,
} from '../../../shared/core/model/labels';
import type { NodePool } from '../../../shared/core/model/nodepool';
import type { Pod, TopologySpreadConstraint } from '../../../shared/core/model/pod';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import { fits, maxResources, NVIDIA_GPU, type Resources } from '../../../shared/core/model/resources';
import type { Taint } from '../../../shared/core/model/taints';
import { MAX_INSTANCE_TYPE_OPTIONS } from '../../../shared/core/scheduling/instance-selection';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import type { NodeClaimPlan, SchedulingResult } from '../../../shared/core/scheduling/types';
import { nodePool, pod, pods, resources } from '../../../sim/world/builders';
import {
  catalog,
  daemonSet,
  defaultNodeClass,
  instanceType,
  realNode,
  type SchedulingInputOptions,
  schedulingInput,
  sumRequests,
} from './fixtures';

/**
 * Behaviour of `schedule` on small, hand-built inputs over the real us-east-1 catalog: where
 * pods go, what NodeClaims look like, and the exact reason given when a pod cannot be placed.
 */

const run = (options: SchedulingInputOptions): SchedulingResult => schedule(schedulingInput(options));

const THREE_ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const inThreeZones = (options: Parameters<typeof nodePool>[0] = {}): NodePool =>
  nodePool({ ...options, requirements: [{ key: LABEL_ZONE, operator: 'In', values: THREE_ZONES }] });
const INFLATE_FAMILIES: NodeSelectorRequirement = {
  key: LABEL_INSTANCE_FAMILY,
  operator: 'In',
  values: ['m5', 'm5d', 'c5', 'c5d', 'c4', 'r4'],
};
const GPU_TAINT: Taint = { key: 'gpu', value: 'true', effect: 'NoSchedule' };
const web = { app: 'web' };
const selectsWeb = { matchLabels: web };

function spread(topologyKey: string, maxSkew: number, extra: Partial<TopologySpreadConstraint> = {}) {
  return {
    maxSkew,
    topologyKey,
    whenUnsatisfiable: 'DoNotSchedule' as const,
    labelSelector: selectsWeb,
    ...extra,
  };
}

const names = (ps: readonly Pod[]) => ps.map((p) => p.name).sort();
const claimedPods = (r: SchedulingResult) => r.nodeClaims.flatMap((c) => c.pods);
const reasons = (r: SchedulingResult) => [...new Set(r.unschedulable.map((u) => u.reason))];

/** Pods per zone over the NodeClaims (their expected zone). */
function podsPerZone(r: SchedulingResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of r.nodeClaims) out[c.zone] = (out[c.zone] ?? 0) + c.pods.length;
  return out;
}

/** The largest capacity among a NodeClaim's options: what it counts against its NodePool's limits. */
function largestCapacity(c: NodeClaimPlan): Resources {
  return c.instanceTypeOptions.reduce<Resources>(
    (acc, o) => maxResources(acc, instanceType(o.name).capacity),
    {},
  );
}

const sum = (rs: readonly Resources[], key: string) => rs.reduce((acc, r) => acc + (r[key] ?? 0), 0);

describe('schedule', () => {
  describe('existing and in-flight capacity', () => {
    const pool = nodePool();

    it.each([
      ['a registered node', 'node' as const],
      ['an in-flight NodeClaim', 'nodeclaim' as const],
    ])('fills %s before creating NodeClaims', (_, kind) => {
      const node = realNode({
        name: 'n1',
        kind,
        instanceType: 'm5.xlarge',
        zone: 'us-east-1a',
        nodePool: pool,
      });
      const pending = pods(3, { name: 'web', cpu: '1' });
      const r = run({ nodePools: [pool], nodes: [node], pods: pending });
      expect(r.placements).toEqual([{ node: 'n1', pods: pending }]);
      expect(r.nodeClaims).toEqual([]);
      expect(r.unschedulable).toEqual([]);
    });

    it('creates NodeClaims for what does not fit on existing nodes', () => {
      // m5.xlarge has 3920m allocatable: three 1-cpu pods fit, the fourth does not.
      const node = realNode({ name: 'n1', instanceType: 'm5.xlarge', zone: 'us-east-1a', nodePool: pool });
      const r = run({ nodePools: [pool], nodes: [node], pods: pods(4, { name: 'web', cpu: '1' }) });
      expect(r.placements.map((p) => [p.node, p.pods.length])).toEqual([['n1', 3]]);
      expect(claimedPods(r)).toHaveLength(1);
    });

    it('counts the pods already bound to a node', () => {
      const bound = pods(3, { name: 'old', cpu: '1', nodeName: 'n1' });
      const node = realNode({ name: 'n1', instanceType: 'm5.xlarge', zone: 'us-east-1a', pods: bound });
      const r = run({ nodePools: [pool], nodes: [node], pods: pods(2, { name: 'web', cpu: '1' }) });
      expect(r.placements).toEqual([]);
      expect(claimedPods(r)).toHaveLength(2);
    });

    it('does not use a cordoned node', () => {
      const node = realNode({
        name: 'n1',
        instanceType: 'm5.xlarge',
        zone: 'us-east-1a',
        nodePool: pool,
        unschedulable: true,
      });
      const pending = pods(3, { name: 'web', cpu: '1' });
      const r = run({ nodePools: [pool], nodes: [node], pods: pending });
      expect(r.placements).toEqual([]);
      expect(names(claimedPods(r))).toEqual(names(pending));
    });

    it('does not use a node whose taint the pod does not tolerate', () => {
      const node = realNode({
        name: 'gpu-node',
        instanceType: 'g4dn.xlarge',
        zone: 'us-east-1a',
        nodePool: nodePool({ taints: [GPU_TAINT] }),
      });
      const r = run({ nodePools: [pool], nodes: [node], pods: pods(1, { cpu: '1' }) });
      expect(r.placements).toEqual([]);
      expect(r.nodeClaims).toHaveLength(1);
    });
  });

  describe('NodePool weights and limits', () => {
    const heavy = (limits = {}) => nodePool({ name: 'heavy', weight: 10, limits });
    const light = nodePool({ name: 'light' });

    it('chooses the NodePool with the highest weight', () => {
      const r = run({ nodePools: [light, heavy()], pods: pods(3, { cpu: '1' }) });
      expect(r.nodeClaims.map((c) => c.nodePool)).toEqual(['heavy', 'heavy', 'heavy']);
      expect(r.nodeClaims.every((c) => c.labels[LABEL_NODEPOOL] === 'heavy')).toBe(true);
    });

    it('tries equal-weight NodePools in name order descending, as Karpenter does', () => {
      const amd64 = nodePool({
        name: 'amd64',
        requirements: [{ key: LABEL_ARCH, operator: 'In', values: ['amd64'] }],
      });
      const arm64 = nodePool({
        name: 'arm64',
        requirements: [{ key: LABEL_ARCH, operator: 'In', values: ['arm64'] }],
      });
      expect(run({ nodePools: [amd64, arm64], pods: pods(1, { cpu: '1' }) }).nodeClaims[0]!.nodePool).toBe(
        'arm64',
      );
      const spot = nodePool({ name: 'spot' });
      const fallback = nodePool({ name: 'default' });
      expect(run({ nodePools: [spot, fallback], pods: pods(1, { cpu: '1' }) }).nodeClaims[0]!.nodePool).toBe(
        'spot',
      );
    });

    it('gives pending pods no node from a static NodePool or one whose node class is not an EC2NodeClass', () => {
      const fixed = nodePool({ name: 'zz-static', weight: 100, replicas: 3 });
      const autoMode = nodePool({
        name: 'zz-auto-mode',
        weight: 100,
        nodeClassRef: { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' },
      });
      const r = run({ nodePools: [fixed, autoMode, light], pods: pods(2, { cpu: '1' }) });
      expect(r.nodeClaims.map((c) => c.nodePool)).toEqual(r.nodeClaims.map(() => 'light'));
      expect(r.nodeClaims.length).toBeGreaterThan(0);
      const alone = run({ nodePools: [fixed, autoMode], pods: pods(1, { cpu: '1' }) });
      expect(alone.nodeClaims).toEqual([]);
      expect(alone.unschedulable).toHaveLength(1);
    });

    it('falls back to a lighter NodePool once the heavier one reaches its limits', () => {
      // 4 cpu of capacity: two 2-vCPU nodes with one 1-cpu pod each, then the light pool.
      const r = run({ nodePools: [light, heavy({ cpu: 4 })], pods: pods(8, { cpu: '1' }) });
      const byPool = (name: string) => r.nodeClaims.filter((c) => c.nodePool === name);
      expect(r.unschedulable).toEqual([]);
      expect(byPool('heavy').length).toBeGreaterThan(0);
      expect(byPool('light').length).toBeGreaterThan(0);
      expect(sum(byPool('heavy').map(largestCapacity), 'cpu')).toBeLessThanOrEqual(4000);
      expect(claimedPods(r)).toHaveLength(8);
    });

    it.each([
      ['cpu', { cpu: 50 }, 'NodePool default: limit cpu=50 reached'],
      ['memory', { memory: '8Gi' }, 'NodePool default: limit memory=8Gi reached'],
      ['nodes', { nodes: 2 }, 'NodePool default: limit nodes=2 reached'],
    ])('stops at the %s limit and says so', (resource, limits, reason) => {
      const np = nodePool({ limits });
      // 2,400 cpu in all: more than two of the largest instance types (896 vCPU) hold.
      const r = run({ nodePools: [np], pods: pods(300, { cpu: '8', memory: '512Mi' }) });
      expect(r.unschedulable.length).toBeGreaterThan(0);
      expect(reasons(r)).toEqual([reason]);
      const limit = np.limits[resource];
      const counted =
        resource === 'nodes' ? r.nodeClaims.length : sum(r.nodeClaims.map(largestCapacity), resource);
      expect(counted).toBeLessThanOrEqual(limit);
      expect(claimedPods(r).length + r.unschedulable.length).toBe(300);
    });

    it('counts existing nodes of the NodePool against its limits', () => {
      const np = nodePool({ limits: { cpu: 50 } });
      // 48 vCPU already running, full: only 2 more may be launched.
      const busy = realNode({
        name: 'big',
        instanceType: 'm5.12xlarge',
        zone: 'us-east-1a',
        nodePool: np,
        pods: pods(1, { cpu: '47', nodeName: 'big' }),
      });
      const r = run({ nodePools: [np], nodes: [busy], pods: pods(4, { cpu: '1' }) });
      expect(sum(r.nodeClaims.map(largestCapacity), 'cpu')).toBeLessThanOrEqual(2000);
      expect(reasons(r)).toEqual(['NodePool default: limit cpu=50 reached']);
    });

    it('packs the 10 × 1-cpu inflate Deployment onto at most 2 nodes within the limits', () => {
      const np = nodePool({ requirements: [INFLATE_FAMILIES], limits: { cpu: 50, memory: '100Gi' } });
      const r = run({
        nodePools: [np],
        pods: pods(10, { name: 'inflate', cpu: '1', labels: { app: 'inflate' } }),
      });
      expect(r.unschedulable).toEqual([]);
      expect(claimedPods(r)).toHaveLength(10);
      expect(r.nodeClaims.length).toBeLessThanOrEqual(2);
      const largest = r.nodeClaims.map(largestCapacity);
      expect(sum(largest, 'cpu')).toBeLessThanOrEqual(50_000);
      expect(sum(largest, 'memory')).toBeLessThanOrEqual(resources({ memory: '100Gi' }).memory);
    });

    it('never launches more nodes than a nodes limit allows, even when a tail node would be split for cost', () => {
      // Planned as one node; finalise splits it in two for cost, and the second part falls back
      // to options outside the limits (finalise.ts planParts: `withinLimits.length > 0 ? … : node.options`).
      const np = nodePool({ requirements: [INFLATE_FAMILIES], limits: { nodes: 1 } });
      const r = run({ nodePools: [np], pods: pods(10, { name: 'inflate', cpu: '1' }) });
      expect(r.nodeClaims).toHaveLength(1);
    });
    it('uses one larger node rather than leave pods pending under a nodes limit of 1', () => {
      // One c5.4xlarge holds all ten; the planned node is sized from the cheapest-per-pod types
      // (t3a.small: one pod each), so nine pods get "limit nodes=1 reached".
      const r = run({
        nodePools: [nodePool({ limits: { nodes: 1 } })],
        pods: pods(10, { cpu: '1', memory: '1Gi' }),
      });
      expect(r.unschedulable).toEqual([]);
      expect(r.nodeClaims).toHaveLength(1);
    });
  });

  describe('taints', () => {
    it('says no NodePool tolerates the taint when none does', () => {
      const r = run({ nodePools: [nodePool({ taints: [GPU_TAINT] })], pods: pods(2, { cpu: '1' }) });
      expect(r.nodeClaims).toEqual([]);
      expect(r.unschedulable.map((u) => u.reason)).toEqual([
        'no NodePool tolerates taint gpu=true:NoSchedule',
        'no NodePool tolerates taint gpu=true:NoSchedule',
      ]);
    });

    it('names the untolerated taint for a pod with a zonal spread too', () => {
      const r = run({
        nodePools: [nodePool({ taints: [GPU_TAINT] })],
        pods: pods(1, { cpu: '1', labels: web, topologySpread: [spread(LABEL_ZONE, 1)] }),
      });
      expect(reasons(r)).toEqual(['no NodePool tolerates taint gpu=true:NoSchedule']);
    });

    it('schedules pods that tolerate the taint and records the taint on the NodeClaim', () => {
      const r = run({
        nodePools: [nodePool({ taints: [GPU_TAINT] })],
        pods: pods(1, { cpu: '1', tolerations: [{ key: 'gpu', operator: 'Exists' }] }),
      });
      expect(r.nodeClaims).toHaveLength(1);
      expect(r.nodeClaims[0].taints).toEqual([GPU_TAINT]);
    });

    it('skips a tainted NodePool for pods that do not tolerate it', () => {
      const tainted = nodePool({ name: 'tainted', weight: 100, taints: [GPU_TAINT] });
      const r = run({ nodePools: [tainted, nodePool({ name: 'open' })], pods: pods(1, { cpu: '1' }) });
      expect(r.nodeClaims.map((c) => c.nodePool)).toEqual(['open']);
    });

    it('ignores startup taints', () => {
      const startup: Taint = { key: 'example.com/agent-not-ready', effect: 'NoSchedule' };
      const r = run({ nodePools: [nodePool({ startupTaints: [startup] })], pods: pods(1, { cpu: '1' }) });
      expect(r.unschedulable).toEqual([]);
      expect(r.nodeClaims[0].startupTaints).toEqual([startup]);
      expect(r.nodeClaims[0].taints).toEqual([]);
    });
  });

  describe('resources', () => {
    it('gives GPU pods GPU instance types only', () => {
      const r = run({ nodePools: [nodePool()], pods: [pod({ requests: { cpu: '1', [NVIDIA_GPU]: 1 } })] });
      const options = r.nodeClaims[0].instanceTypeOptions;
      expect(options.length).toBeGreaterThan(0);
      for (const o of options)
        expect(instanceType(o.name).allocatable[NVIDIA_GPU], o.name).toBeGreaterThanOrEqual(1);
    });

    it('honours the effective requests (init container maximum and overhead included)', () => {
      // What pod-manifest computes for max(init 3 cpu, app 1 cpu) + 250m overhead.
      const big = pod({ requests: { cpu: '3250m', memory: '10Gi' } });
      const r = run({ nodePools: [nodePool()], pods: [big] });
      const claim = r.nodeClaims[0];
      expect(claim.requests).toEqual(big.requests);
      for (const o of claim.instanceTypeOptions) {
        expect(fits(big.requests, {}, instanceType(o.name).allocatable), o.name).toBe(true);
      }
    });

    it('says which request no instance type has for an unknown extended resource', () => {
      const r = run({
        nodePools: [nodePool()],
        pods: [pod({ requests: { cpu: '1', 'example.com/widget': 1 } })],
      });
      expect(r.nodeClaims).toEqual([]);
      expect(reasons(r)).toEqual([
        'NodePool default: no instance type has room for requests pods=1, cpu=1, example.com/widget=1',
      ]);
    });
  });

  describe('node selectors and node affinity', () => {
    it('matches a custom label the NodePool declares in its template labels', () => {
      const np = nodePool({ templateLabels: { team: 'checkout' } });
      const r = run({ nodePools: [np], pods: pods(1, { cpu: '1', nodeSelector: { team: 'checkout' } }) });
      expect(r.unschedulable).toEqual([]);
      expect(r.nodeClaims[0].labels.team).toBe('checkout');
    });

    it('names the label when no NodePool declares it', () => {
      const r = run({
        nodePools: [nodePool()],
        pods: pods(1, { cpu: '1', nodeSelector: { team: 'checkout' } }),
      });
      expect(reasons(r)).toEqual(['NodePool default: label team does not have known values']);
    });

    it('satisfies one of the ORed required terms when another cannot be met', () => {
      const p = pod({
        cpu: '1',
        requiredNodeAffinity: [
          { matchExpressions: [{ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['no-such-family'] }] },
          { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1d'] }] },
        ],
      });
      const r = run({ nodePools: [nodePool()], pods: [p] });
      expect(r.nodeClaims.map((c) => c.zone)).toEqual(['us-east-1d']);
      expect(r.nodeClaims[0].instanceTypeOptions.every((o) => o.zone === 'us-east-1d')).toBe(true);
    });

    it('honours preferred node affinity when it can', () => {
      const p = pod({
        cpu: '1',
        preferredNodeAffinity: [
          {
            weight: 10,
            preference: { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1e'] }] },
          },
        ],
      });
      const r = run({ nodePools: [nodePool()], pods: [p] });
      expect(r.nodeClaims.map((c) => c.zone)).toEqual(['us-east-1e']);
    });

    it('relaxes preferred node affinity when it cannot be met', () => {
      const p = pod({
        cpu: '1',
        preferredNodeAffinity: [
          {
            weight: 10,
            preference: { matchExpressions: [{ key: LABEL_ARCH, operator: 'In', values: ['s390x'] }] },
          },
        ],
      });
      const r = run({ nodePools: [nodePool()], pods: [p] });
      expect(r.unschedulable).toEqual([]);
      expect(r.nodeClaims).toHaveLength(1);
    });

    it('places pods only on existing nodes whose labels satisfy them', () => {
      const arm = realNode({ name: 'arm', instanceType: 'm6g.large', zone: 'us-east-1a' });
      const r = run({
        nodePools: [nodePool()],
        nodes: [arm],
        pods: pods(1, { cpu: '1', nodeSelector: { [LABEL_ARCH]: 'amd64' } }),
      });
      expect(r.placements).toEqual([]);
      for (const o of r.nodeClaims[0].instanceTypeOptions)
        expect(instanceType(o.name).info.architecture).toBe('amd64');
    });
  });

  describe('topology spread', () => {
    it('spreads evenly over the three zones a NodePool allows', () => {
      const r = run({
        nodePools: [inThreeZones()],
        pods: pods(9, { cpu: '1', labels: web, topologySpread: [spread(LABEL_ZONE, 1)] }),
      });
      expect(r.unschedulable).toEqual([]);
      expect(podsPerZone(r)).toEqual({ 'us-east-1a': 3, 'us-east-1b': 3, 'us-east-1c': 3 });
      // Each NodeClaim is pinned to its zone, so whichever option launches lands there.
      for (const c of r.nodeClaims) expect(c.requirements.get(LABEL_ZONE)?.single).toBe(c.zone);
    });

    it('fills the emptier zones first when existing pods skew the spread', () => {
      const bound = pods(3, { name: 'old', cpu: '100m', labels: web, nodeName: 'n1' });
      const node = realNode({ name: 'n1', instanceType: 'm5.xlarge', zone: 'us-east-1a', pods: bound });
      const r = run({
        nodePools: [inThreeZones()],
        nodes: [node],
        pods: pods(6, { cpu: '1', labels: web, topologySpread: [spread(LABEL_ZONE, 1)] }),
      });
      // n1 has room, but a pod there would make the skew 4.
      expect(r.placements).toEqual([]);
      expect(podsPerZone(r)).toEqual({ 'us-east-1b': 3, 'us-east-1c': 3 });
    });

    it('treats missing domains as empty while fewer than minDomains exist', () => {
      const r = run({
        nodePools: [inThreeZones()],
        pods: pods(6, { cpu: '1', labels: web, topologySpread: [spread(LABEL_ZONE, 1, { minDomains: 5 })] }),
      });
      expect(podsPerZone(r)).toEqual({ 'us-east-1a': 1, 'us-east-1b': 1, 'us-east-1c': 1 });
      expect(reasons(r)).toEqual([
        'topology spread on topology.kubernetes.io/zone (maxSkew 1) cannot be satisfied: no domain keeps the skew',
      ]);
    });

    it.each([
      ['DoNotSchedule', 1],
      ['ScheduleAnyway', 4],
    ] as const)(
      'with %s, schedules %i of 4 pods when only one eligible zone can grow',
      (whenUnsatisfiable, placed) => {
        // us-east-1b is eligible (a full node there admits the pods) but the NodePool only offers us-east-1a.
        const full = realNode({
          name: 'full',
          instanceType: 't3.medium',
          zone: 'us-east-1b',
          pods: [pod({ cpu: '1900m', nodeName: 'full' })],
        });
        const r = run({
          nodePools: [
            nodePool({ requirements: [{ key: LABEL_ZONE, operator: 'In', values: ['us-east-1a'] }] }),
          ],
          nodes: [full],
          pods: pods(4, {
            cpu: '1',
            labels: web,
            topologySpread: [spread(LABEL_ZONE, 1, { whenUnsatisfiable })],
          }),
        });
        expect(claimedPods(r)).toHaveLength(placed);
        expect(r.unschedulable).toHaveLength(4 - placed);
      },
    );

    it('counts only the pods sharing the values of matchLabelKeys, so an old revision does not skew a new one', () => {
      const v1 = { ...web, 'pod-template-hash': 'v1' };
      const v2 = { ...web, 'pod-template-hash': 'v2' };
      const bound = pods(3, { name: 'old', cpu: '100m', labels: v1, nodeName: 'n1' });
      const node = realNode({ name: 'n1', instanceType: 'm5.xlarge', zone: 'us-east-1a', pods: bound });
      const rollout = (extra: Partial<TopologySpreadConstraint>) =>
        run({
          nodePools: [inThreeZones()],
          nodes: [node],
          pods: pods(3, {
            name: 'new',
            cpu: '1',
            labels: v2,
            topologySpread: [spread(LABEL_ZONE, 1, extra)],
          }),
        });
      // With the key, the three v1 pods are another revision's: one v2 pod per zone, the
      // us-east-1a one on n1 (kubernetes-sigs/karpenter topology.go newForTopologies).
      const withKey = rollout({ matchLabelKeys: ['pod-template-hash'] });
      expect(withKey.unschedulable).toEqual([]);
      expect(withKey.placements.map((p) => [p.node, p.pods.length])).toEqual([['n1', 1]]);
      expect(podsPerZone(withKey)).toEqual({ 'us-east-1b': 1, 'us-east-1c': 1 });
      // Without it, they count: us-east-1a already has 3, so the new pods go elsewhere.
      const without = rollout({});
      expect(without.placements).toEqual([]);
      expect(podsPerZone(without)).toEqual({ 'us-east-1b': 2, 'us-east-1c': 1 });
    });

    it('ignores a matchLabelKeys key the pod does not carry', () => {
      const bound = pods(3, { name: 'old', cpu: '100m', labels: web, nodeName: 'n1' });
      const node = realNode({ name: 'n1', instanceType: 'm5.xlarge', zone: 'us-east-1a', pods: bound });
      const r = run({
        nodePools: [inThreeZones()],
        nodes: [node],
        pods: pods(6, {
          cpu: '1',
          labels: web,
          topologySpread: [spread(LABEL_ZONE, 1, { matchLabelKeys: ['pod-template-hash'] })],
        }),
      });
      expect(r.placements).toEqual([]);
      expect(podsPerZone(r)).toEqual({ 'us-east-1b': 3, 'us-east-1c': 3 });
    });

    it('puts at most maxSkew pods on each new node with hostname spread', () => {
      const r = run({
        nodePools: [nodePool()],
        pods: pods(6, { cpu: '100m', labels: web, topologySpread: [spread(LABEL_HOSTNAME, 2)] }),
      });
      expect(r.nodeClaims.map((c) => c.pods.length)).toEqual([2, 2, 2]);
    });
  });

  describe('pod affinity and anti-affinity', () => {
    it('puts one pod per node with hostname anti-affinity', () => {
      const r = run({
        nodePools: [nodePool()],
        pods: pods(4, {
          cpu: '100m',
          labels: web,
          podAntiAffinity: [{ labelSelector: selectsWeb, topologyKey: LABEL_HOSTNAME }],
        }),
      });
      expect(r.nodeClaims.map((c) => c.pods.length)).toEqual([1, 1, 1, 1]);
    });

    it.each([
      ['the pod with the term first', true],
      ['the pod with the term last', false],
    ])('keeps required anti-affinity between pods of one plan both ways (%s)', (_, termFirst) => {
      const guarded = pod({
        name: 'guarded',
        cpu: '100m',
        labels: { app: 'guarded' },
        podAntiAffinity: [{ labelSelector: selectsWeb, topologyKey: LABEL_HOSTNAME }],
      });
      const plain = pod({ name: 'web-1', cpu: '100m', labels: web });
      const r = run({ nodePools: [nodePool()], pods: termFirst ? [guarded, plain] : [plain, guarded] });
      expect(r.unschedulable).toStrictEqual([]);
      const nodeOf = (name: string) => r.nodeClaims.findIndex((c) => c.pods.some((p) => p.name === name));
      expect(nodeOf('guarded')).not.toBe(nodeOf('web-1'));
    });

    it('scopes an affinity term to the pod’s own namespace unless it names others', () => {
      const term = { labelSelector: selectsWeb, topologyKey: LABEL_HOSTNAME };
      const other = pod({ name: 'web-other', namespace: 'other', cpu: '100m', labels: web });
      const sameNs = run({
        nodePools: [nodePool()],
        pods: [other, pod({ name: 'guarded', namespace: 'team', cpu: '100m', podAntiAffinity: [term] })],
      });
      expect(sameNs.nodeClaims).toHaveLength(1);
      const named = run({
        nodePools: [nodePool()],
        pods: [
          other,
          pod({
            name: 'guarded',
            namespace: 'team',
            cpu: '100m',
            podAntiAffinity: [{ ...term, namespaces: ['other'] }],
          }),
        ],
      });
      expect(named.nodeClaims).toHaveLength(2);
    });

    it('follows preferred anti-affinity when it costs nothing to, and ignores it when it cannot', () => {
      const preferApart = {
        weight: 100,
        podAffinityTerm: { labelSelector: selectsWeb, topologyKey: LABEL_ZONE },
      };
      const r = run({
        nodePools: [inThreeZones()],
        pods: pods(3, { cpu: '1', labels: web, preferredPodAntiAffinity: [preferApart] }),
      });
      expect(r.unschedulable).toStrictEqual([]);
      expect(Object.keys(podsPerZone(r))).toHaveLength(3);
      const crowded = run({
        nodePools: [inThreeZones()],
        pods: pods(5, { cpu: '1', labels: web, preferredPodAntiAffinity: [preferApart] }),
      });
      expect(crowded.unschedulable).toStrictEqual([]);
    });

    it('puts one pod per zone with zonal anti-affinity and explains the rest', () => {
      const r = run({
        nodePools: [inThreeZones()],
        pods: pods(5, {
          cpu: '1',
          labels: web,
          podAntiAffinity: [{ labelSelector: selectsWeb, topologyKey: LABEL_ZONE }],
        }),
      });
      expect(podsPerZone(r)).toEqual({ 'us-east-1a': 1, 'us-east-1b': 1, 'us-east-1c': 1 });
      expect(r.unschedulable.map((u) => u.reason)).toEqual([
        'pod anti-affinity on topology.kubernetes.io/zone: every eligible domain has a matching pod',
        'pod anti-affinity on topology.kubernetes.io/zone: every eligible domain has a matching pod',
      ]);
    });

    it('keeps pods with zonal affinity to each other in one zone', () => {
      const r = run({
        nodePools: [nodePool()],
        pods: pods(6, {
          cpu: '1500m',
          labels: web,
          podAffinity: [{ labelSelector: selectsWeb, topologyKey: LABEL_ZONE }],
        }),
      });
      expect(r.unschedulable).toEqual([]);
      const zones = new Set(r.nodeClaims.map((c) => c.requirements.get(LABEL_ZONE)?.single));
      expect(zones.size).toBe(1);
      expect([...zones][0]).toBeDefined();
    });

    it('follows existing pods to their zone', () => {
      const db = realNode({
        name: 'db',
        instanceType: 't3.medium',
        zone: 'us-east-1d',
        pods: [pod({ name: 'db-0', cpu: '1800m', labels: { app: 'db' }, nodeName: 'db' })],
      });
      const r = run({
        nodePools: [nodePool()],
        nodes: [db],
        pods: pods(3, {
          cpu: '1',
          podAffinity: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: LABEL_ZONE }],
        }),
      });
      expect(r.unschedulable).toEqual([]);
      expect(r.nodeClaims.map((c) => c.requirements.get(LABEL_ZONE)?.single)).toEqual(
        r.nodeClaims.map(() => 'us-east-1d'),
      );
    });

    it('puts pods with hostname affinity on the first planned node that holds their target and has room', () => {
      const db = { app: 'db' };
      // Three db pods, one per node (hostname anti-affinity among themselves), then pods that
      // must share a node with a db pod: first fit takes the first db node in planned order.
      const dbPods = pods(3, {
        name: 'db',
        cpu: '2',
        labels: db,
        podAntiAffinity: [{ labelSelector: { matchLabels: db }, topologyKey: LABEL_HOSTNAME }],
      });
      const followers = pods(2, {
        name: 'cache',
        cpu: '100m',
        podAffinity: [{ labelSelector: { matchLabels: db }, topologyKey: LABEL_HOSTNAME }],
      });
      const r = run({ nodePools: [nodePool()], pods: [...dbPods, ...followers] });
      expect(r.unschedulable).toEqual([]);
      expect(r.nodeClaims.map((c) => names(c.pods))).toEqual([
        ['cache-0', 'cache-1', 'db-0'],
        ['db-1'],
        ['db-2'],
      ]);
    });

    it('keeps a new pod off the node of an existing pod whose anti-affinity it matches', () => {
      const guard = pod({
        name: 'guard',
        cpu: '100m',
        labels: { app: 'guard' },
        nodeName: 'n1',
        podAntiAffinity: [{ labelSelector: selectsWeb, topologyKey: LABEL_HOSTNAME }],
      });
      const node = realNode({ name: 'n1', instanceType: 'm5.xlarge', zone: 'us-east-1a', pods: [guard] });
      const webPod = pod({ name: 'web', cpu: '1', labels: web });
      const other = pod({ name: 'other', cpu: '1', labels: { app: 'other' } });
      const r = run({ nodePools: [nodePool()], nodes: [node], pods: [webPod, other] });
      expect(r.placements.map((p) => [p.node, names(p.pods)])).toEqual([['n1', ['other']]]);
      expect(names(claimedPods(r))).toEqual(['web']);
    });
  });

  describe('DaemonSets', () => {
    const agent = daemonSet(
      'agent',
      pod({ name: 'agent', cpu: '200m', memory: '256Mi', ownerKind: 'DaemonSet' }),
    );

    it('adds DaemonSet overhead to every new node', () => {
      const r = run({
        nodePools: [nodePool()],
        daemonSets: [agent],
        pods: pods(1, { name: 'web', cpu: '1' }),
      });
      const claim = r.nodeClaims[0];
      expect(claim.daemonSetRequests).toEqual(agent.pod.requests);
      expect(claim.requests).toEqual(sumRequests([...claim.pods, agent.pod]));
      for (const o of claim.instanceTypeOptions) {
        expect(fits(claim.requests, {}, instanceType(o.name).allocatable), o.name).toBe(true);
      }
    });

    it('does not count a DaemonSet that does not tolerate the NodePool taints', () => {
      const r = run({
        nodePools: [nodePool({ taints: [GPU_TAINT] })],
        daemonSets: [agent],
        pods: pods(1, { cpu: '1', tolerations: [{ key: 'gpu', operator: 'Exists' }] }),
      });
      expect(r.nodeClaims[0].daemonSetRequests).toEqual({});
      expect(r.nodeClaims[0].requests).toEqual(sumRequests(r.nodeClaims[0].pods));
    });

    it('counts a DaemonSet that tolerates the NodePool taints', () => {
      const tolerant = daemonSet(
        'tolerant',
        pod({ name: 'tolerant', cpu: '200m', tolerations: [{ operator: 'Exists' }], ownerKind: 'DaemonSet' }),
      );
      const r = run({
        nodePools: [nodePool({ taints: [GPU_TAINT] })],
        daemonSets: [tolerant],
        pods: pods(1, { cpu: '1', tolerations: [{ key: 'gpu', operator: 'Exists' }] }),
      });
      expect(r.nodeClaims[0].daemonSetRequests).toEqual(tolerant.pod.requests);
    });

    it('counts a DaemonSet that does not tolerate a startup taint: it runs once the taint is lifted', () => {
      const r = run({
        nodePools: [
          nodePool({ startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }] }),
        ],
        daemonSets: [agent],
        pods: pods(1, { cpu: '1' }),
      });
      expect(r.nodeClaims[0].daemonSetRequests).toEqual(agent.pod.requests);
    });
  });

  describe('launch options', () => {
    it('chooses spot when the NodePool allows it', () => {
      const r = run({ nodePools: [nodePool()], pods: pods(1, { cpu: '1' }) });
      const claim = r.nodeClaims[0];
      expect(claim.capacityType).toBe('spot');
      expect(claim.capacityTypes).toEqual(['spot']);
      expect(claim.instanceTypeOptions.length).toBeLessThanOrEqual(MAX_INSTANCE_TYPE_OPTIONS);
      expect(claim.instanceType).toBe(claim.instanceTypeOptions[0].name);
      expect(claim.price).toBe(Math.min(...claim.instanceTypeOptions.map((o) => o.price)));
    });

    it('chooses on-demand when the NodePool only allows on-demand', () => {
      const np = nodePool({
        requirements: [{ key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] }],
      });
      const r = run({ nodePools: [np], pods: pods(1, { cpu: '1' }) });
      const claim = r.nodeClaims[0];
      expect(claim.capacityType).toBe('on-demand');
      for (const o of claim.instanceTypeOptions) expect(o.capacityType).toBe('on-demand');
    });

    it('skips offerings marked unavailable', () => {
      const before = run({ nodePools: [nodePool()], pods: pods(1, { cpu: '1' }) }).nodeClaims[0];
      const unavailable = new Set(
        catalog.zones.map((z) => offeringKey(before.instanceType, z, before.capacityType)),
      );
      const types = resolveInstanceTypes(catalog, defaultNodeClass, unavailable);
      const r = run({
        nodePools: [nodePool()],
        instanceTypes: new Map([['default', types]]),
        pods: pods(1, { cpu: '1' }),
      });
      const claim = r.nodeClaims[0];
      expect(claim.instanceType).not.toBe(before.instanceType);
      for (const o of claim.instanceTypeOptions) {
        expect(unavailable.has(offeringKey(o.name, o.zone, o.capacityType)), `${o.name} in ${o.zone}`).toBe(
          false,
        );
      }
      expect(claim.price).toBeGreaterThanOrEqual(before.price);
    });

    it('keeps enough instance families among the options to satisfy minValues', () => {
      // The 60 cheapest types that fit span fewer than 55 families: the options must be widened.
      const np = nodePool({
        requirements: [{ key: LABEL_INSTANCE_FAMILY, operator: 'Exists', minValues: 55 }],
      });
      const r = run({ nodePools: [np], pods: pods(1, { cpu: '1' }) });
      const options = r.nodeClaims[0].instanceTypeOptions;
      expect(options.length).toBeLessThanOrEqual(MAX_INSTANCE_TYPE_OPTIONS);
      expect(new Set(options.map((o) => instanceType(o.name).info.family)).size).toBeGreaterThanOrEqual(55);
    });

    it('says why when minValues cannot be satisfied', () => {
      const np = nodePool({
        requirements: [{ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['m5', 'c5'], minValues: 3 }],
      });
      const r = run({ nodePools: [np], pods: pods(1, { cpu: '1' }) });
      expect(r.nodeClaims).toEqual([]);
      expect(reasons(r)).toEqual([
        'NodePool default: minValues 3 for karpenter.k8s.aws/instance-family not satisfied: only 2 value(s) among instance types that fit',
      ]);
    });
  });

  describe('scale', () => {
    it('schedules 20,000 identical pods (one group) onto full nodes', () => {
      const np = nodePool({ requirements: [{ key: LABEL_INSTANCE_FAMILY, operator: 'In', values: ['m5'] }] });
      const r = run({ nodePools: [np], pods: pods(20_000, { name: 'web', cpu: '100m', memory: '256Mi' }) });
      expect(r.unschedulable).toEqual([]);
      expect(claimedPods(r)).toHaveLength(20_000);
      // The densest m5 node holds 637 such pods (m5.16xlarge: 63,770m allocatable).
      expect(r.nodeClaims.length).toBeGreaterThanOrEqual(Math.ceil(20_000 / 737));
      expect(r.nodeClaims.length).toBeLessThanOrEqual(Math.ceil(20_000 / 637) + 2);
      for (const c of r.nodeClaims) {
        expect(fits(c.requests, {}, instanceType(c.instanceType).allocatable)).toBe(true);
      }
    });
  });
});
