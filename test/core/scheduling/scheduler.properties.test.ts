import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type InstanceType, offeringKey } from '../../../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import type { CapacityType } from '../../../shared/core/model/capacity-type';
import { labelSelectorMatches } from '../../../shared/core/model/label-selector';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_FAMILY,
  LABEL_NODECLASS,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  WELL_KNOWN_LABELS,
} from '../../../shared/core/model/labels';
import { NODES_LIMIT, type NodePool } from '../../../shared/core/model/nodepool';
import type { Pod, PodAffinityTerm } from '../../../shared/core/model/pod';
import { podRequirementTerms } from '../../../shared/core/model/pod-requirements';
import {
  type NodeSelectorRequirement,
  Requirement,
  Requirements,
} from '../../../shared/core/model/requirements';
import { fits, maxResources, NVIDIA_GPU, type Resources } from '../../../shared/core/model/resources';
import { firstUntoleratedTaint, type Taint, type Toleration } from '../../../shared/core/model/taints';
import { MAX_INSTANCE_TYPE_OPTIONS } from '../../../shared/core/scheduling/instance-selection';
import { schedule } from '../../../shared/core/scheduling/scheduler';
import type { NodeClaimPlan, SchedulingInput, SchedulingResult } from '../../../shared/core/scheduling/types';
import { formatReason } from '../../../shared/core/scheduling/unschedulable-reason';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodePool, pod, pods } from '../../../sim/world/builders';
import {
  catalog,
  daemonSet,
  defaultNodeClass,
  instanceType,
  nonZero,
  realNode,
  schedulingInput,
  sumRequests,
} from './fixtures';

/**
 * Properties of the scheduler over the real us-east-1 catalog: whatever the NodePools, DaemonSets,
 * existing nodes and pending pods, every pod is accounted for exactly once, nothing is
 * overcommitted, limits hold, every constraint is honoured, launch options are well-formed, and
 * the result is deterministic. Scenarios are small specs (printed by fast-check on failure) that
 * {@link buildInput} turns into a SchedulingInput.
 */

const SEED = 20_240_611;
const NUM_RUNS = 60;

const ZONES = catalog.zones;
const ARCHS = ['amd64', 'arm64'];
const FAMILIES = ['m5', 'c5', 'r5', 't3', 'm6g', 'c6g', 'c7g', 'm7i', 'g4dn', 'g5'];
const CATEGORIES = ['c', 'm', 'r', 't', 'g'];
const EXISTING_TYPES = [
  'm5.large',
  'm5.xlarge',
  'c5.xlarge',
  'm6g.large',
  'r5.large',
  't3.medium',
  'c6g.2xlarge',
];
/** Offerings marked unavailable in some scenarios: the cheapest spot types in a few zones. */
const UNAVAILABLE = new Set(
  ['t3.nano', 't4g.nano', 't3a.nano', 't3.micro', 't4g.micro', 'c6g.medium'].flatMap((t) =>
    ['us-east-1a', 'us-east-1b', 'us-east-1c'].map((z) => offeringKey(t, z, 'spot')),
  ),
);

const TAINTS: Readonly<Record<string, Taint>> = {
  dedicated: { key: 'dedicated', value: 'batch', effect: 'NoSchedule' },
  gpu: { key: 'gpu', value: 'true', effect: 'NoSchedule' },
  prefer: { key: 'spare', effect: 'PreferNoSchedule' },
};
const TOLERATIONS: Readonly<Record<string, readonly Toleration[]>> = {
  none: [],
  dedicated: [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }],
  all: [{ operator: 'Exists' }],
};

// ---------------------------------------------------------------------------------------------
// Scenario specs and their arbitraries

interface PoolSpec {
  readonly selector?: { readonly key: 'family' | 'category'; readonly values: readonly string[] };
  readonly arch?: readonly string[];
  readonly capacityTypes?: readonly CapacityType[];
  readonly zones?: readonly string[];
  readonly taint?: keyof typeof TAINTS;
  readonly limits: { readonly cpu?: number; readonly memoryGi?: number; readonly nodes?: number };
  readonly weight: number;
  readonly team?: string;
}

interface DaemonSetSpec {
  readonly cpuM: number;
  readonly memoryMi: number;
  readonly tolerateAll: boolean;
  readonly arch?: string;
}

interface BoundPodSpec {
  readonly cpuM: number;
  readonly memoryMi: number;
  readonly app: number;
}

interface NodeSpec {
  readonly type: string;
  readonly zone: string;
  /** Index into the pools; out of range = not Karpenter-managed. */
  readonly pool: number;
  readonly kind: StateNode['kind'];
  readonly unschedulable: boolean;
  readonly bound: readonly BoundPodSpec[];
}

interface GroupSpec {
  readonly count: number;
  readonly cpuM: number;
  readonly memoryMi: number;
  readonly gpu: boolean;
  readonly nodeSelector?: { readonly key: 'arch' | 'zone' | 'team'; readonly value: string };
  readonly affinity?: readonly (readonly NodeSelectorRequirement[])[];
  readonly tolerations: keyof typeof TOLERATIONS;
  readonly zoneSpread?: number;
  readonly hostSpread?: number;
  readonly hostAntiAffinity: boolean;
  readonly zoneAffinity: boolean;
  readonly priority: number;
}

interface Scenario {
  readonly pools: readonly PoolSpec[];
  readonly daemonSets: readonly DaemonSetSpec[];
  readonly nodes: readonly NodeSpec[];
  readonly groups: readonly GroupSpec[];
  readonly unavailable: boolean;
}

const nonEmptySubset = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });

/** `arb` in about `percent` % of cases, else undefined (which is what shrinking aims for). */
const sometimes = <T>(percent: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary: arb });

const poolSpec: fc.Arbitrary<PoolSpec> = fc.record({
  selector: sometimes(
    50,
    fc.oneof(
      fc.record({ key: fc.constant('family' as const), values: nonEmptySubset(FAMILIES) }),
      fc.record({ key: fc.constant('category' as const), values: nonEmptySubset(CATEGORIES) }),
    ),
  ),
  arch: sometimes(30, nonEmptySubset(ARCHS)),
  capacityTypes: sometimes(40, nonEmptySubset<CapacityType>(['spot', 'on-demand'])),
  zones: sometimes(40, nonEmptySubset(ZONES)),
  taint: sometimes(30, fc.constantFrom<keyof typeof TAINTS>('dedicated', 'gpu', 'prefer')),
  limits: fc.record({
    cpu: sometimes(30, fc.integer({ min: 4, max: 200 })),
    memoryGi: sometimes(20, fc.integer({ min: 16, max: 800 })),
    nodes: sometimes(20, fc.integer({ min: 1, max: 30 })),
  }),
  weight: fc.integer({ min: 0, max: 50 }),
  team: sometimes(30, fc.constantFrom('a', 'b')),
});

const daemonSetSpec: fc.Arbitrary<DaemonSetSpec> = fc.record({
  cpuM: fc.integer({ min: 1, max: 10 }).map((n) => n * 50),
  memoryMi: fc.integer({ min: 64, max: 512 }),
  tolerateAll: fc.boolean(),
  arch: sometimes(30, fc.constantFrom(...ARCHS)),
});

const nodeSpec: fc.Arbitrary<NodeSpec> = fc.record({
  type: fc.constantFrom(...EXISTING_TYPES),
  zone: fc.constantFrom(...ZONES),
  pool: fc.integer({ min: 0, max: 3 }),
  kind: fc.constantFrom<StateNode['kind']>('node', 'node', 'nodeclaim'),
  // One node in ten is cordoned.
  unschedulable: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  bound: fc.array(
    fc.record({
      cpuM: fc.integer({ min: 2, max: 10 }).map((n) => n * 50),
      memoryMi: fc.integer({ min: 128, max: 1024 }),
      app: fc.integer({ min: 0, max: 9 }),
    }),
    { maxLength: 3 },
  ),
});

const expression: fc.Arbitrary<NodeSelectorRequirement> = fc.oneof(
  ...(
    [
      [LABEL_ARCH, ARCHS],
      [LABEL_ZONE, ZONES],
      [LABEL_INSTANCE_FAMILY, FAMILIES],
    ] as const
  ).flatMap(([key, values]) => [
    fc.record({
      key: fc.constant(key),
      operator: fc.constantFrom<NodeSelectorRequirement['operator']>('In', 'NotIn'),
      values: nonEmptySubset<string>(values),
    }),
    fc.constant<NodeSelectorRequirement>({ key, operator: 'Exists' }),
  ]),
);

const groupSpec: fc.Arbitrary<GroupSpec> = fc.record({
  count: fc.integer({ min: 1, max: 25 }),
  cpuM: fc.integer({ min: 1, max: 80 }).map((n) => n * 50),
  memoryMi: fc.integer({ min: 64, max: 16 * 1024 }),
  gpu: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  nodeSelector: sometimes(
    20,
    fc.oneof(
      fc.record({ key: fc.constant('arch' as const), value: fc.constantFrom(...ARCHS) }),
      fc.record({ key: fc.constant('zone' as const), value: fc.constantFrom(...ZONES) }),
      fc.record({ key: fc.constant('team' as const), value: fc.constantFrom('a', 'b') }),
    ),
  ),
  affinity: sometimes(
    25,
    fc.array(fc.array(expression, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }),
  ),
  tolerations: fc.constantFrom<keyof typeof TOLERATIONS>('none', 'none', 'dedicated', 'all'),
  zoneSpread: sometimes(30, fc.integer({ min: 1, max: 2 })),
  hostSpread: sometimes(20, fc.integer({ min: 1, max: 2 })),
  hostAntiAffinity: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
  zoneAffinity: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
  priority: fc.constantFrom(0, 0, 0, 100),
});

const scenario: fc.Arbitrary<Scenario> = fc.record({
  pools: fc.array(poolSpec, { minLength: 1, maxLength: 3 }),
  daemonSets: fc.array(daemonSetSpec, { maxLength: 2 }),
  nodes: fc.array(nodeSpec, { maxLength: 5 }),
  groups: fc.array(groupSpec, { minLength: 1, maxLength: 6 }),
  unavailable: fc.boolean(),
});

// ---------------------------------------------------------------------------------------------
// From spec to SchedulingInput

const appLabel = (i: number) => ({ app: `g${i}` });

function buildPool(spec: PoolSpec, index: number): NodePool {
  const requirements: NodeSelectorRequirement[] = [];
  if (spec.selector) {
    const key = spec.selector.key === 'family' ? LABEL_INSTANCE_FAMILY : LABEL_INSTANCE_CATEGORY;
    requirements.push({ key, operator: 'In', values: spec.selector.values });
  }
  if (spec.arch) requirements.push({ key: LABEL_ARCH, operator: 'In', values: spec.arch });
  if (spec.capacityTypes)
    requirements.push({ key: LABEL_CAPACITY_TYPE, operator: 'In', values: spec.capacityTypes });
  if (spec.zones) requirements.push({ key: LABEL_ZONE, operator: 'In', values: spec.zones });
  return nodePool({
    name: `pool-${index}`,
    requirements,
    taints: spec.taint ? [TAINTS[spec.taint]] : [],
    limits: {
      ...(spec.limits.cpu !== undefined ? { cpu: spec.limits.cpu } : {}),
      ...(spec.limits.memoryGi !== undefined ? { memory: `${spec.limits.memoryGi}Gi` } : {}),
      ...(spec.limits.nodes !== undefined ? { [NODES_LIMIT]: spec.limits.nodes } : {}),
    },
    weight: spec.weight,
    templateLabels: spec.team ? { team: spec.team } : {},
  });
}

function buildNode(spec: NodeSpec, index: number, pools: readonly NodePool[]): StateNode {
  const name = `existing-${index}`;
  const it = instanceType(spec.type);
  // Bound pods are kept only while they fit: existing nodes are never overcommitted to start with.
  const bound: Pod[] = [];
  spec.bound.forEach((b, j) => {
    const p = pod({
      name: `${name}-bound-${j}`,
      cpu: `${b.cpuM}m`,
      memory: `${b.memoryMi}Mi`,
      labels: appLabel(b.app),
      nodeName: name,
    });
    if (fits(sumRequests([...bound, p]), {}, it.allocatable)) bound.push(p);
  });
  return realNode({
    name,
    instanceType: spec.type,
    zone: spec.zone,
    ...(spec.pool < pools.length ? { nodePool: pools[spec.pool] } : {}),
    kind: spec.kind,
    unschedulable: spec.unschedulable,
    pods: bound,
  });
}

function buildGroup(spec: GroupSpec, index: number): Pod[] {
  const labels = appLabel(index);
  const selector = { matchLabels: labels };
  const nodeSelectorKey = { arch: LABEL_ARCH, zone: LABEL_ZONE, team: 'team' } as const;
  const sameZone: PodAffinityTerm = { labelSelector: selector, topologyKey: LABEL_ZONE };
  const oneHost: PodAffinityTerm = { labelSelector: selector, topologyKey: LABEL_HOSTNAME };
  return pods(spec.count, {
    name: `g${index}`,
    labels,
    requests: {
      cpu: `${spec.cpuM}m`,
      memory: `${spec.memoryMi}Mi`,
      ...(spec.gpu ? { [NVIDIA_GPU]: 1 } : {}),
    },
    nodeSelector: spec.nodeSelector
      ? { [nodeSelectorKey[spec.nodeSelector.key]]: spec.nodeSelector.value }
      : {},
    ...(spec.affinity ? { requiredNodeAffinity: spec.affinity.map((t) => ({ matchExpressions: t })) } : {}),
    tolerations: TOLERATIONS[spec.tolerations],
    topologySpread: [
      ...(spec.zoneSpread
        ? [
            {
              maxSkew: spec.zoneSpread,
              topologyKey: LABEL_ZONE,
              whenUnsatisfiable: 'DoNotSchedule' as const,
              labelSelector: selector,
            },
          ]
        : []),
      ...(spec.hostSpread
        ? [
            {
              maxSkew: spec.hostSpread,
              topologyKey: LABEL_HOSTNAME,
              whenUnsatisfiable: 'DoNotSchedule' as const,
              labelSelector: selector,
            },
          ]
        : []),
    ],
    podAntiAffinity: spec.hostAntiAffinity ? [oneHost] : [],
    podAffinity: spec.zoneAffinity ? [sameZone] : [],
    priority: spec.priority,
  });
}

function buildInput(s: Scenario): SchedulingInput {
  const types = resolveInstanceTypes(catalog, defaultNodeClass, s.unavailable ? UNAVAILABLE : undefined);
  const pools = s.pools.map(buildPool);
  return schedulingInput({
    nodePools: pools,
    instanceTypes: new Map(pools.map((np) => [np.name, types])),
    daemonSets: s.daemonSets.map((d, i) =>
      daemonSet(
        `ds-${i}`,
        pod({
          name: `ds-${i}`,
          namespace: 'kube-system',
          cpu: `${d.cpuM}m`,
          memory: `${d.memoryMi}Mi`,
          tolerations: d.tolerateAll ? TOLERATIONS.all : [],
          nodeSelector: d.arch ? { [LABEL_ARCH]: d.arch } : {},
          ownerKind: 'DaemonSet',
        }),
      ),
    ),
    nodes: s.nodes.map((n, i) => buildNode(n, i, pools)),
    // At most 150 pending pods.
    pods: s.groups.flatMap(buildGroup).slice(0, 150),
  });
}

// ---------------------------------------------------------------------------------------------
// Views of a result

/** A node after scheduling: existing (bound and newly placed pods) or a planned NodeClaim. */
interface NodeView {
  readonly name: string;
  readonly existing?: StateNode;
  /** Zone the node is (or will be) in, when known. */
  readonly zone: string | undefined;
  readonly placed: readonly Pod[];
  /** Bound and newly placed pods. */
  readonly all: readonly Pod[];
}

function nodeViews(input: SchedulingInput, result: SchedulingResult): NodeView[] {
  const placedOn = new Map(result.placements.map((p) => [p.node, p.pods]));
  const existing = input.nodes.map((n): NodeView => {
    const placed = placedOn.get(n.name) ?? [];
    return { name: n.name, existing: n, zone: n.labels[LABEL_ZONE], placed, all: [...n.pods, ...placed] };
  });
  const claims = result.nodeClaims.map(
    (c, i): NodeView => ({
      name: `claim-${i}`,
      zone: c.requirements.get(LABEL_ZONE)?.single,
      placed: c.pods,
      all: c.pods,
    }),
  );
  return [...existing, ...claims];
}

function poolRequirements(np: NodePool): Requirements {
  return Requirements.from(np.template.requirements)
    .intersect(Requirements.fromLabels(np.template.labels))
    .with(Requirement.of(LABEL_NODEPOOL, 'In', [np.name]))
    .with(Requirement.of(LABEL_NODECLASS, 'In', [np.template.nodeClassRef.name]));
}

function typesOf(input: SchedulingInput, nodePool: string): Map<string, InstanceType> {
  return new Map((input.instanceTypes.get(nodePool) ?? []).map((it) => [it.name, it]));
}

/** The labels a node launched as `it` for this claim would carry. */
function launchedLabels(claim: NodeClaimPlan, it: InstanceType, zone: string, capacityType: CapacityType) {
  return {
    ...it.requirements.labels(),
    ...claim.labels,
    [LABEL_ZONE]: zone,
    [LABEL_CAPACITY_TYPE]: capacityType,
  };
}

/**
 * Zones pods like `p` could use: those offered (available, allowed) by instance types of a NodePool
 * whose taints `p` tolerates and whose requirements are compatible with one of its terms, and the
 * zones of existing nodes whose taints it tolerates and whose labels satisfy a term.
 */
function eligibleZones(input: SchedulingInput, p: Pod): Set<string> {
  const terms = podRequirementTerms(p);
  const out = new Set<string>();
  for (const np of input.nodePools) {
    if (firstUntoleratedTaint(p.tolerations, np.template.taints)) continue;
    const base = poolRequirements(np);
    for (const term of terms) {
      if (base.compatible(term, WELL_KNOWN_LABELS) !== undefined) continue;
      const reqs = base.intersect(term);
      const zone = reqs.get(LABEL_ZONE);
      const ct = reqs.get(LABEL_CAPACITY_TYPE);
      for (const it of input.instanceTypes.get(np.name) ?? []) {
        if (reqs.intersects(it.requirements) !== undefined) continue;
        for (const o of it.offerings) {
          if (o.available && (zone?.has(o.zone) ?? true) && (ct?.has(o.capacityType) ?? true))
            out.add(o.zone);
        }
      }
    }
  }
  for (const n of input.nodes) {
    if (firstUntoleratedTaint(p.tolerations, n.taints)) continue;
    if (terms.some((t) => t.matchesLabels(n.labels))) out.add(n.labels[LABEL_ZONE]);
  }
  return out;
}

/** The pending pods by group label (`app`), for topology checks. */
function pendingGroups(input: SchedulingInput): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const p of input.pods) {
    const list = out.get(p.labels.app) ?? [];
    list.push(p);
    out.set(p.labels.app, list);
  }
  return out;
}

const matchingIn = (
  ps: readonly Pod[],
  owner: Pod,
  term: { labelSelector?: PodAffinityTerm['labelSelector'] },
) => ps.filter((q) => q.namespace === owner.namespace && labelSelectorMatches(term.labelSelector, q.labels));

function summary(r: SchedulingResult) {
  return {
    placements: r.placements.map((p) => ({ node: p.node, pods: p.pods.map((q) => q.name) })),
    nodeClaims: r.nodeClaims.map((c) => ({
      nodePool: c.nodePool,
      instanceType: c.instanceType,
      capacityType: c.capacityType,
      zone: c.zone,
      price: c.price,
      options: c.instanceTypeOptions.map((o) => `${o.name}/${o.zone}/${o.capacityType}/${o.price}`),
      requirements: c.requirements.toString(),
      pods: c.pods.map((q) => q.name),
      requests: c.requests,
    })),
    unschedulable: r.unschedulable.map((u) => ({ pod: u.pod.name, reason: u.reason })),
  };
}

/**
 * Results by scenario (as JSON): every property sees the same generated scenarios (same seed),
 * so each is scheduled once for all of them. Shrinking produces new scenarios, scheduled afresh.
 */
const scheduled = new Map<string, { input: SchedulingInput; result: SchedulingResult }>();

function scheduleScenario(s: Scenario): { input: SchedulingInput; result: SchedulingResult } {
  const key = JSON.stringify(s);
  let run = scheduled.get(key);
  if (!run) {
    const input = buildInput(s);
    run = { input, result: schedule(input) };
    scheduled.set(key, run);
  }
  return run;
}

/** Runs `check` on the input and result of every generated scenario. */
function forAllScenarios(check: (input: SchedulingInput, result: SchedulingResult) => void): void {
  fc.assert(
    fc.property(scenario, (s) => {
      const { input, result } = scheduleScenario(s);
      check(input, result);
    }),
    { seed: SEED, numRuns: NUM_RUNS },
  );
}

// ---------------------------------------------------------------------------------------------
// The properties, as checks of one input and its result

/** Property: accounts for every pending pod exactly once. */
function checkAccounting(input: SchedulingInput, result: SchedulingResult): void {
  const seen = [
    ...result.placements.flatMap((p) => p.pods),
    ...result.nodeClaims.flatMap((c) => c.pods),
    ...result.unschedulable.map((u) => u.pod),
  ].map((p) => p.uid);
  expect(new Set(seen).size).toBe(seen.length);
  expect([...seen].sort()).toEqual(input.pods.map((p) => p.uid).sort());
  // Unschedulable pods always say why.
  for (const u of result.unschedulable) expect(u.reason).not.toBe('');
}

/** Property: every unschedulable pod's message is its typed cause, formatted. */
function checkReasons(_input: SchedulingInput, result: SchedulingResult): void {
  for (const u of result.unschedulable) expect(u.reason).toBe(formatReason(u.cause));
}

/** Property: never puts more on a node than any of its instance type options or its allocatable holds. */
function checkFit(input: SchedulingInput, result: SchedulingResult): void {
  for (const claim of result.nodeClaims) {
    const types = typesOf(input, claim.nodePool);
    const need = sumRequests(claim.pods);
    for (const [k, v] of Object.entries(claim.daemonSetRequests)) need[k] = (need[k] ?? 0) + v;
    expect(nonZero(claim.requests)).toEqual(nonZero(need));
    for (const option of claim.instanceTypeOptions) {
      const it = types.get(option.name);
      expect(it, `option ${option.name}`).toBeDefined();
      expect(fits(need, {}, it!.allocatable), `${option.name} holds ${JSON.stringify(need)}`).toBe(true);
    }
    // DaemonSet pods that will really run on the expected node are part of the overhead.
    const expected = types.get(claim.instanceType)!;
    const labels = launchedLabels(claim, expected, claim.zone, claim.capacityType);
    const running = input.daemonSets.filter(
      (ds) =>
        firstUntoleratedTaint(ds.pod.tolerations, [...claim.taints, ...claim.startupTaints]) === undefined &&
        podRequirementTerms(ds.pod).some((t) => t.matchesLabels(labels)),
    );
    expect(fits(sumRequests([...claim.pods, ...running.map((d) => d.pod)]), {}, expected.allocatable)).toBe(
      true,
    );
    for (const [k, v] of Object.entries(sumRequests(running.map((d) => d.pod)))) {
      expect(claim.daemonSetRequests[k] ?? 0, `DaemonSet ${k}`).toBeGreaterThanOrEqual(v);
    }
  }
  for (const view of nodeViews(input, result)) {
    if (!view.existing) continue;
    expect(fits(sumRequests(view.all), {}, view.existing.allocatable), `node ${view.name}`).toBe(true);
  }
}

/** Property: keeps every NodePool within its limits, counting each NodeClaim at its largest option. */
function checkLimits(input: SchedulingInput, result: SchedulingResult): void {
  for (const np of input.nodePools) {
    const claims = result.nodeClaims.filter((c) => c.nodePool === np.name);
    if (claims.length === 0) continue;
    const types = typesOf(input, np.name);
    const used: Record<string, number> = {};
    const add = (k: string, v: number) => {
      used[k] = (used[k] ?? 0) + v;
    };
    for (const n of input.nodes) {
      if (n.nodePool !== np.name) continue;
      for (const [k, v] of Object.entries(n.capacity ?? n.allocatable)) add(k, v);
      add(NODES_LIMIT, 1);
    }
    for (const c of claims) {
      let largest: Resources = {};
      for (const o of c.instanceTypeOptions) largest = maxResources(largest, types.get(o.name)!.capacity);
      for (const [k, v] of Object.entries(largest)) add(k, v);
      add(NODES_LIMIT, 1);
    }
    for (const [k, limit] of Object.entries(np.limits)) {
      expect(used[k] ?? 0, `${np.name} ${k} (limit ${limit})`).toBeLessThanOrEqual(limit);
    }
  }
}

/** Property: honours taints and node requirements. */
function checkTaintsAndRequirements(input: SchedulingInput, result: SchedulingResult): void {
  const pools = new Map(input.nodePools.map((np) => [np.name, np]));
  for (const claim of result.nodeClaims) {
    const np = pools.get(claim.nodePool)!;
    expect(claim.taints).toEqual(np.template.taints);
    const types = typesOf(input, claim.nodePool);
    for (const p of claim.pods) {
      expect(firstUntoleratedTaint(p.tolerations, np.template.taints), `${p.name} tolerates`).toBeUndefined();
      const terms = podRequirementTerms(p);
      const compatible = terms.filter(
        (t) => claim.requirements.compatible(t, WELL_KNOWN_LABELS) === undefined,
      );
      expect(compatible.length, `${p.name} compatible with ${claim.requirements}`).toBeGreaterThan(0);
      // Whichever option launches, the node's labels satisfy the pod.
      for (const o of claim.instanceTypeOptions) {
        const labels = launchedLabels(claim, types.get(o.name)!, o.zone, o.capacityType);
        expect(
          terms.some((t) => t.matchesLabels(labels)),
          `${p.name} on ${o.name} in ${o.zone}`,
        ).toBe(true);
      }
    }
  }
  for (const view of nodeViews(input, result)) {
    const node = view.existing;
    if (!node || view.placed.length === 0) continue;
    expect(node.unschedulable ?? false, `${node.name} is cordoned`).toBe(false);
    for (const p of view.placed) {
      expect(firstUntoleratedTaint(p.tolerations, node.taints), `${p.name} on ${node.name}`).toBeUndefined();
      expect(podRequirementTerms(p).some((t) => t.matchesLabels(node.labels))).toBe(true);
    }
  }
}

/** Property: honours hostname anti-affinity and hostname topology spread. */
function checkHostnameTopology(input: SchedulingInput, result: SchedulingResult): void {
  for (const view of nodeViews(input, result)) {
    for (const p of view.placed) {
      for (const term of p.podAntiAffinity) {
        expect(term.topologyKey).toBe(LABEL_HOSTNAME);
        const others = matchingIn(view.all, p, term).filter((q) => q.uid !== p.uid);
        expect(
          others.map((q) => q.name),
          `${p.name} on ${view.name} repels`,
        ).toEqual([]);
      }
    }
    const checked = new Set<string>();
    for (const p of view.placed) {
      for (const c of p.topologySpread) {
        if (c.topologyKey !== LABEL_HOSTNAME || checked.has(p.labels.app)) continue;
        checked.add(p.labels.app);
        const count = matchingIn(view.all, p, c).length;
        expect(count, `${p.labels.app} on ${view.name}`).toBeLessThanOrEqual(c.maxSkew);
      }
    }
  }
}

/** Property: honours zonal topology spread and zonal pod affinity. */
function checkZonalTopology(input: SchedulingInput, result: SchedulingResult): void {
  const views = nodeViews(input, result);
  for (const [app, group] of pendingGroups(input)) {
    const rep = group[0];
    const placedViews = views.filter((v) => v.placed.some((p) => p.labels.app === app));
    const zonal = rep.topologySpread.some((c) => c.topologyKey === LABEL_ZONE) || rep.podAffinity.length > 0;
    if (zonal) {
      for (const v of placedViews) expect(v.zone, `${app} on ${v.name} has a single zone`).toBeDefined();
    }
    for (const c of rep.topologySpread) {
      if (c.topologyKey !== LABEL_ZONE) continue;
      // A pod may go to zone d only while count(d) + 1 − min ≤ maxSkew, and the minimum never
      // falls: so every zone that received a pod ends at most maxSkew above the final minimum.
      const universe = eligibleZones(input, rep);
      const count = new Map([...universe].map((z) => [z, 0]));
      for (const v of views) {
        if (v.zone !== undefined && count.has(v.zone)) {
          count.set(v.zone, count.get(v.zone)! + matchingIn(v.all, rep, c).length);
        }
      }
      const min = Math.min(...count.values());
      for (const v of placedViews) {
        expect(
          count.get(v.zone!),
          `${app} zone ${v.zone}: ${JSON.stringify([...count])}`,
        ).toBeLessThanOrEqual(min + c.maxSkew);
      }
    }
    for (const term of rep.podAffinity) {
      const before = new Set(
        input.nodes.filter((n) => matchingIn(n.pods, rep, term).length > 0).map((n) => n.labels[LABEL_ZONE]),
      );
      const zones = new Set(placedViews.map((v) => v.zone));
      if (before.size > 0) {
        for (const z of zones) expect(before.has(z!), `${app} in ${z}`).toBe(true);
      } else {
        expect(zones.size, `${app} zones ${[...zones]}`).toBeLessThanOrEqual(1);
      }
    }
  }
}

/** Property: offers at most 60 options cheapest first, expects the cheapest, and prefers spot. */
function checkOptions(input: SchedulingInput, result: SchedulingResult): void {
  for (const claim of result.nodeClaims) {
    const options = claim.instanceTypeOptions;
    const types = typesOf(input, claim.nodePool);
    expect(options.length).toBeGreaterThan(0);
    expect(options.length).toBeLessThanOrEqual(MAX_INSTANCE_TYPE_OPTIONS);
    for (let i = 1; i < options.length; i++)
      expect(options[i].price).toBeGreaterThanOrEqual(options[i - 1].price);
    expect(claim.instanceType).toBe(options[0].name);
    expect(claim.price).toBe(options[0].price);
    expect(claim.zone).toBe(options[0].zone);
    expect(claim.zones).toContain(claim.zone);
    const zoneReq = claim.requirements.get(LABEL_ZONE);
    for (const o of options) {
      expect(o.capacityType).toBe(claim.capacityType);
      const offering = types
        .get(o.name)!
        .offerings.find((x) => x.zone === o.zone && x.capacityType === o.capacityType && x.available);
      expect(offering, `${o.name} ${o.capacityType} in ${o.zone}`).toBeDefined();
      expect(offering!.price).toBe(o.price);
      expect(zoneReq?.has(o.zone) ?? true).toBe(true);
    }
    const ct = claim.requirements.get(LABEL_CAPACITY_TYPE);
    expect(ct?.has(claim.capacityType) ?? true).toBe(true);
    if (claim.capacityType !== 'spot' && (ct?.has('spot') ?? true)) {
      const withSpot = options.filter((o) =>
        types
          .get(o.name)!
          .offerings.some((x) => x.capacityType === 'spot' && x.available && (zoneReq?.has(x.zone) ?? true)),
      );
      expect(withSpot.map((o) => o.name)).toEqual([]);
    }
  }
}

// ---------------------------------------------------------------------------------------------

describe('schedule (properties over the us-east-1 catalog)', () => {
  it('accounts for every pending pod exactly once', () => forAllScenarios(checkAccounting));

  it('gives every unschedulable pod its cause as data, formatted as its message', () =>
    forAllScenarios(checkReasons));

  it('never puts more on a node than any of its instance type options or its allocatable holds', () =>
    forAllScenarios(checkFit));

  it('keeps every NodePool within its limits, counting each NodeClaim at its largest option', () =>
    forAllScenarios(checkLimits));

  it('honours taints and node requirements', () => forAllScenarios(checkTaintsAndRequirements));

  it('honours hostname anti-affinity and hostname topology spread', () =>
    forAllScenarios(checkHostnameTopology));

  it('honours zonal topology spread and zonal pod affinity', () => forAllScenarios(checkZonalTopology));

  it('offers at most 60 options cheapest first, expects the cheapest, and prefers spot', () =>
    forAllScenarios(checkOptions));

  it('keeps a nodes limit when the last NodeClaim is split for cost', () => {
    // Ten 1-cpu pods planned onto one node of a pool limited to 1 node; finalise splits it in two.
    const splitPastLimit: Scenario = {
      pools: [
        {
          selector: { key: 'family', values: ['m5', 'c5'] },
          limits: { nodes: 1 },
          weight: 0,
        },
      ],
      daemonSets: [],
      nodes: [],
      groups: [
        {
          count: 10,
          cpuM: 1000,
          memoryMi: 64,
          gpu: false,
          tolerations: 'none',
          hostAntiAffinity: false,
          zoneAffinity: false,
          priority: 0,
        },
      ],
      unavailable: false,
    };
    const { input, result } = scheduleScenario(splitPastLimit);
    checkLimits(input, result);
  });

  it('gives the same result for the same input', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        // A fresh input (new objects, so no identity-keyed cache can help) against the shared run.
        expect(summary(schedule(buildInput(s)))).toEqual(summary(scheduleScenario(s).result));
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------

/** A result with one NodeClaim replaced. */
function withClaim(result: SchedulingResult, index: number, patch: Partial<NodeClaimPlan>): SchedulingResult {
  return { ...result, nodeClaims: result.nodeClaims.map((c, i) => (i === index ? { ...c, ...patch } : c)) };
}

/** The claim's requirements with the zone pinned to `zone`. */
function pinnedTo(claim: NodeClaimPlan, zone: string): Partial<NodeClaimPlan> {
  const requirements = Requirements.from(
    claim.requirements.toSelectorRequirements().filter((r) => r.key !== LABEL_ZONE),
  ).with(Requirement.of(LABEL_ZONE, 'In', [zone]));
  return { requirements, labels: requirements.labels(), zone, zones: [zone] };
}

describe('the property checks', () => {
  const app = { app: 'web' };
  const plain = schedulingInput({
    nodePools: [nodePool()],
    pods: pods(4, { name: 'web', cpu: '1', labels: app }),
  });
  const plainResult = schedule(plain);

  it('pass on a correct result', () => {
    for (const check of [checkAccounting, checkFit, checkLimits, checkTaintsAndRequirements, checkOptions]) {
      check(plain, plainResult);
    }
  });

  it('catch a pod reported twice or not at all', () => {
    const twice = {
      ...plainResult,
      unschedulable: [{ pod: plain.pods[0], cause: { kind: 'no-nodepool' } as const, reason: 'x' }],
    };
    expect(() => checkAccounting(plain, twice)).toThrow();
    expect(() =>
      checkAccounting(plain, { ...plainResult, nodeClaims: plainResult.nodeClaims.slice(1) }),
    ).toThrow();
  });

  it('catch an option too small for the pods', () => {
    const tiny = { name: 't3.nano', price: 0, capacityType: 'spot' as const, zone: 'us-east-1a' };
    const overfull = { instanceTypeOptions: [tiny], pods: plain.pods, requests: sumRequests(plain.pods) };
    expect(() => checkFit(plain, withClaim(plainResult, 0, overfull))).toThrow(/t3.nano holds/);
  });

  it('catch requests that leave out the DaemonSet overhead', () => {
    const claim = plainResult.nodeClaims[0];
    const bad = withClaim(plainResult, 0, { daemonSetRequests: { cpu: 100 } });
    expect(() => checkFit(plain, bad)).toThrow();
    expect(claim.daemonSetRequests).toEqual({});
  });

  it('catch a NodePool over its limits', () => {
    const limited = { ...plain, nodePools: [nodePool({ limits: { cpu: 1 } })] };
    expect(() => checkLimits(limited, plainResult)).toThrow(/default cpu/);
  });

  it('catch an untolerated taint and an unsatisfied node selector', () => {
    const taint = { key: 'dedicated', value: 'batch', effect: 'NoSchedule' as const };
    const tainted = { ...plain, nodePools: [nodePool({ taints: [taint] })] };
    expect(() => checkTaintsAndRequirements(tainted, withClaim(plainResult, 0, { taints: [taint] }))).toThrow(
      /tolerates/,
    );
    const claim = plainResult.nodeClaims[0];
    const elsewhere = ZONES.find((z) => z !== claim.zone)!;
    const picky = pod({ name: 'picky', cpu: '1', nodeSelector: { [LABEL_ZONE]: elsewhere } });
    const input = { ...plain, pods: [...plain.pods, picky] };
    expect(() =>
      checkTaintsAndRequirements(input, withClaim(plainResult, 0, { pods: [...claim.pods, picky] })),
    ).toThrow(/picky on/);
  });

  it('catch two anti-affine pods on one node and too many spread pods on one host', () => {
    const antiAffine = pods(2, {
      name: 'anti',
      labels: app,
      podAntiAffinity: [{ labelSelector: { matchLabels: app }, topologyKey: LABEL_HOSTNAME }],
    });
    const input = { ...plain, pods: antiAffine };
    const result = schedule(input);
    checkHostnameTopology(input, result);
    expect(() =>
      checkHostnameTopology(input, {
        ...result,
        nodeClaims: [{ ...result.nodeClaims[0], pods: antiAffine }],
      }),
    ).toThrow(/repels/);
    const spread = pods(3, {
      name: 'spread',
      labels: app,
      topologySpread: [
        {
          maxSkew: 2,
          topologyKey: LABEL_HOSTNAME,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: app },
        },
      ],
    });
    const spreadInput = { ...plain, pods: spread };
    const spreadResult = schedule(spreadInput);
    checkHostnameTopology(spreadInput, spreadResult);
    expect(() =>
      checkHostnameTopology(spreadInput, {
        ...spreadResult,
        nodeClaims: [{ ...spreadResult.nodeClaims[0], pods: spread }],
      }),
    ).toThrow(/web on claim-0/);
  });

  it('catch a skewed zonal spread and a split zonal affinity', () => {
    const threeZones = nodePool({
      requirements: [{ key: LABEL_ZONE, operator: 'In', values: ZONES.slice(0, 3) }],
    });
    const spread = schedulingInput({
      nodePools: [threeZones],
      pods: pods(6, {
        name: 'spread',
        cpu: '1',
        labels: app,
        topologySpread: [
          {
            maxSkew: 1,
            topologyKey: LABEL_ZONE,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: app },
          },
        ],
      }),
    });
    const result = schedule(spread);
    checkZonalTopology(spread, result);
    const allInA = {
      ...result,
      nodeClaims: result.nodeClaims.map((c) => ({ ...c, ...pinnedTo(c, ZONES[0]) })),
    };
    expect(() => checkZonalTopology(spread, allInA)).toThrow(/web zone us-east-1a/);

    const affine = schedulingInput({
      nodePools: [threeZones],
      pods: pods(2, {
        name: 'affine',
        cpu: '3',
        labels: app,
        podAffinity: [{ labelSelector: { matchLabels: app }, topologyKey: LABEL_ZONE }],
        podAntiAffinity: [{ labelSelector: { matchLabels: app }, topologyKey: LABEL_HOSTNAME }],
      }),
    });
    const together = schedule(affine);
    checkZonalTopology(affine, together);
    expect(together.nodeClaims).toHaveLength(2);
    const apart = withClaim(
      together,
      1,
      pinnedTo(together.nodeClaims[1], ZONES.find((z) => z !== together.nodeClaims[0].zone)!),
    );
    expect(() => checkZonalTopology(affine, apart)).toThrow(/web zones/);
  });

  it('catch options out of price order, a wrong expected type and on-demand where spot was possible', () => {
    const claim = plainResult.nodeClaims[0];
    expect(claim.instanceTypeOptions.length).toBeGreaterThan(1);
    const reversed = [...claim.instanceTypeOptions].reverse();
    expect(() => checkOptions(plain, withClaim(plainResult, 0, { instanceTypeOptions: reversed }))).toThrow();
    expect(() =>
      checkOptions(plain, withClaim(plainResult, 0, { instanceType: reversed[0].name })),
    ).toThrow();
    const onDemand = claim.instanceTypeOptions.map((o) => {
      const price = instanceType(o.name).offerings.find(
        (x) => x.zone === o.zone && x.capacityType === 'on-demand',
      )!.price;
      return { ...o, capacityType: 'on-demand' as const, price };
    });
    onDemand.sort((a, b) => a.price - b.price);
    const bad = withClaim(plainResult, 0, {
      instanceTypeOptions: onDemand,
      instanceType: onDemand[0].name,
      price: onDemand[0].price,
      capacityType: 'on-demand',
    });
    expect(() => checkOptions(plain, bad)).toThrow(/\[\]/);
  });
});
