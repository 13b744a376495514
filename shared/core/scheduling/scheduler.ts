import { isManagedNodePool, isStaticNodePool, orderByWeight } from '../model/nodepool';
import type { Pod } from '../model/pod';
import { TopologyDomains } from './domains';
import { type ExistingCandidates, ExistingCapacity, type ExistingCapacityBase } from './existing-capacity';
import { finalise } from './finalise';
import { NewNodes } from './new-nodes';
import { NodePoolContext } from './nodepool-context';
import { PendingDemand } from './pending-demand';
import type { Attempt } from './placement-request';
import { groupPods, type PodGroup } from './pod-groups';
import { affinityRetries, type PlacementProfile, placementProfiles } from './relaxation';
import { type GroupTopology, TopologyRegistry } from './topology';
import type { SchedulingInput, SchedulingResult } from './types';
import type { UnschedulablePod } from './unschedulable-reason';
import { unschedulablePods } from './unschedulable-reason';

/**
 * Decides where pending pods go: onto existing and in-flight capacity first, then onto new
 * NodeClaims, first-fit-decreasing over pod groups, honouring requirements, taints, topology,
 * DaemonSet overhead and NodePool limits and weights. Pure: a function of its input.
 *
 * The run is split as Karpenter's scheduling package is: existing-capacity.ts (existing
 * nodes), new-nodes.ts (planned nodes), domains.ts and topology.ts (topology), relaxation.ts
 * (preferences given up in turn, the affinity retry) and finalise.ts (NodeClaims).
 *
 * `existing` is this run's view of `input.nodes` when the caller prepared it for many runs
 * ({@link ExistingCapacityBase.without}, by way of plan-capacity.ts `CapacityPlanner`); it must
 * hold exactly `input.nodes`. By default it is built from them for this run alone.
 */
export function schedule(input: SchedulingInput, existing?: ExistingCapacity): SchedulingResult {
  return new Scheduler(input, existing ?? new ExistingCapacity(input.nodes)).run();
}

/** One scheduling run: places every group in order, relaxing preferences as needed. */
class Scheduler {
  private readonly groups: readonly PodGroup[];
  private readonly topologies = new Map<PodGroup, GroupTopology>();
  private readonly domains: TopologyDomains;
  private readonly newNodes: NewNodes;
  private readonly demand = new PendingDemand();
  private readonly unschedulable: UnschedulablePod[] = [];

  /** `existing` is the run's view of `input.nodes` (built once for many runs, or for this one). */
  constructor(
    input: SchedulingInput,
    private readonly existing: ExistingCapacity,
  ) {
    const classes = new Map(input.nodeClasses.map((c) => [c.name, c]));
    // Static NodePools keep a fixed node count and podlift launches only through EC2NodeClasses:
    // neither takes pending pods (Karpenter's provisioner skips IsStatic and !IsManaged pools).
    const contexts = orderByWeight(
      input.nodePools.filter((np) => isManagedNodePool(np) && !isStaticNodePool(np)),
    ).map(
      (np) =>
        new NodePoolContext(
          np,
          classes.get(np.template.nodeClassRef.name),
          input.instanceTypes.get(np.name) ?? [],
          input.countedInLimits?.length ? [...input.nodes, ...input.countedInLimits] : input.nodes,
          input.daemonSets,
        ),
    );
    this.groups = groupPods(input.pods);

    // Every group's rules are registered before any is bound: a group feeds the counters of
    // rules declared by groups after it.
    const registry = new TopologyRegistry();
    const rules = this.groups.map((g) => registry.rulesOf(g.representative));
    this.existing.recordRunningPods(registry);
    this.groups.forEach((g, i) => {
      this.topologies.set(g, registry.bind(g.representative, rules[i]));
    });

    this.domains = new TopologyDomains(contexts, input.nodes, registry.topologyKeys());
    this.newNodes = new NewNodes(contexts, this.domains, this.demand);
    for (const g of this.groups) this.demand.add(g.requests, g.pods.length);
  }

  run(): SchedulingResult {
    for (const group of this.groups) this.scheduleGroup(group, group.pods);
    this.retryAffinityFailures();
    const placements = this.existing.placements();
    const finalised = finalise(this.newNodes.planned);
    return {
      placements,
      nodeClaims: finalised.nodeClaims,
      unschedulable: [...this.unschedulable, ...finalised.unschedulable],
    };
  }

  /** Gives pods whose required pod affinity matched nothing on the first pass one more pass. */
  private retryAffinityFailures(): void {
    for (const { group, pods } of affinityRetries(this.groups, this.unschedulable)) {
      const retry = new Set(pods);
      const kept = this.unschedulable.filter((u) => !retry.has(u.pod));
      this.unschedulable.length = 0;
      this.unschedulable.push(...kept);
      this.demand.add(group.requests, pods.length);
      this.scheduleGroup(group, pods);
    }
  }

  /**
   * Places the pods step by step under the group's strictest profile; when a step places
   * nothing, relaxes to the next profile (relaxation.ts) and, past the last, gives up on the rest.
   */
  private scheduleGroup(group: PodGroup, pods: readonly Pod[]): void {
    const topology = this.topologies.get(group)!;
    const profiles = placementProfiles(group, topology);
    let pending = pods;
    let profileIndex = 0;
    let candidates = this.existing.candidates(group, profiles[0]);
    this.newNodes.beginGroup();
    while (pending.length > 0) {
      const attempt = this.placeSome(group, profiles[profileIndex], topology, pending, candidates);
      if ('placed' in attempt) {
        pending = pending.slice(attempt.placed);
        this.demand.add(group.requests, -attempt.placed);
        continue;
      }
      if (profileIndex + 1 < profiles.length) {
        profileIndex++;
        candidates = this.existing.candidates(group, profiles[profileIndex]);
        this.newNodes.beginGroup();
        continue;
      }
      this.unschedulable.push(...unschedulablePods(pending, attempt.reason));
      this.demand.add(group.requests, -pending.length);
      return;
    }
  }

  /**
   * Places as many pods of the group as one node takes, trying existing capacity, then the
   * nodes planned so far, then a new node; or says why none can be placed.
   */
  private placeSome(
    group: PodGroup,
    profile: PlacementProfile,
    topology: GroupTopology,
    pending: readonly Pod[],
    candidates: ExistingCandidates,
  ): Attempt {
    const restricted = this.domains.restrict(group, profile, topology);
    if ('reason' in restricted) return restricted;
    const { restrictions } = restricted;
    const pinKeys = this.domains.pinKeys(restrictions, topology);
    // Each placement changes zone-level counts, so constrained pods go one at a time.
    const bulk = pinKeys.size === 0 ? pending.length : 1;
    const request = { group, profile, topology, pending, bulk, pinKeys, restrictions };
    const placed = this.existing.place(candidates, request) || this.newNodes.placeOnPlanned(request);
    return placed > 0 ? { placed } : this.newNodes.open(request);
  }
}
