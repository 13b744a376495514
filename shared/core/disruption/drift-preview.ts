import type { EC2NodeClass } from '../model/ec2nodeclass';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_NODEPOOL, LABEL_ZONE } from '../model/labels';
import { conditionIsTrue, type NodeClaim } from '../model/nodeclaim';
import type { NodePool } from '../model/nodepool';
import { isReschedulable } from '../provisioning/pods-to-provision';
import { planCapacity } from '../scheduling/plan-capacity';
import type { SchedulingResult } from '../scheduling/types';
import { type ClusterSnapshot, joinNodesAndClaims } from '../state/cluster-snapshot';
import type { StateNode } from '../state/cluster-state';
import { candidatePrice } from './candidates';
import { type DriftVerdict, driftOf } from './drift';
import { hashRestamps } from './hash-versions';

/**
 * `podlift diff`'s first half, pure: which NodeClaims a changed NodePool or EC2NodeClass would
 * drift, by the very rules the disruption loop applies on its next run (drift.ts `driftOf`, after
 * hash-versions.ts `hashRestamps`), and what the planner would put in their place.
 */

/** What the preview reads of the cluster: a snapshot without the loop-only parts. */
export type DriftPreviewState = Pick<
  ClusterSnapshot,
  'nodePools' | 'nodeClasses' | 'nodeClassStatus' | 'nodeClaims' | 'nodes' | 'daemonSets' | 'catalog'
> &
  Partial<Pick<ClusterSnapshot, 'instances'>>;

/** The changed objects, each replacing the cluster's object of its name (or added when new). */
export interface DriftChange {
  readonly nodePools?: readonly NodePool[];
  readonly nodeClasses?: readonly EC2NodeClass[];
}

/** One launched NodeClaim, its drift before and after the change. */
export interface ClaimDrift {
  readonly nodeClaim: string;
  readonly nodePool: string;
  readonly node?: string;
  readonly instanceType?: string;
  readonly zone?: string;
  readonly capacityType?: string;
  /** USD per hour (recorded, or the catalog's price of its offering; 0 when neither). */
  readonly price: number;
  readonly before: DriftVerdict;
  readonly after: DriftVerdict;
}

/**
 * The drift of every launched NodeClaim that is not being deleted and whose NodePool exists,
 * before and after `change`. Hashes are compared as the loop compares them once it has re-stamped
 * claims written under another hash version (Karpenter's, or an older podlift's) against today's
 * objects. EC2 is not asked: an instance's subnet and security groups count as unknown (no network
 * drift), and when a changed EC2NodeClass selects AMIs, subnets or security groups by other terms
 * than today's, what they select is unknown and so is the AMI drift of its claims — the verdict
 * says so rather than guess.
 */
export function previewDrift(state: DriftPreviewState, change: DriftChange): ClaimDrift[] {
  const claims = restamped(state);
  const instances =
    state.instances ??
    new Map(claims.flatMap((c) => (c.status.providerID ? [[c.status.providerID, {}] as const] : [])));
  const before = { ...state, nodeClaims: claims, instances };
  const after = changedState(before, change);
  const nodesByProvider = new Map(
    joinNodesAndClaims(state.nodes, claims).flatMap((j) =>
      j.node && j.nodeClaim ? [[j.nodeClaim.name, j.node]] : [],
    ),
  );
  const rows: ClaimDrift[] = [];
  for (const claim of claims) {
    const poolName = claim.labels[LABEL_NODEPOOL] ?? '';
    const oldPool = before.nodePools.find((p) => p.name === poolName);
    const newPool = after.nodePools.find((p) => p.name === poolName);
    if (claim.deletionTimestamp || !oldPool || !newPool || !conditionIsTrue(claim, 'Launched')) continue;
    const node = nodesByProvider.get(claim.name);
    const label = (key: string) => node?.labels[key] ?? claim.labels[key];
    rows.push({
      nodeClaim: claim.name,
      nodePool: poolName,
      ...(node ? { node: node.name } : {}),
      ...optional('instanceType', label(LABEL_INSTANCE_TYPE)),
      ...optional('zone', label(LABEL_ZONE)),
      ...optional('capacityType', label(LABEL_CAPACITY_TYPE)),
      price: candidatePrice(claim, node ?? { labels: {} }, state.catalog).price,
      before: driftOf(claim, oldPool, before),
      after: explainUnknown(driftOf(claim, newPool, after), claim, change, before),
    });
  }
  return rows;
}

/** The claims that drift because of the change: drifted after it, not before. */
export function driftedByChange(rows: readonly ClaimDrift[]): ClaimDrift[] {
  return rows.filter((r) => r.after.kind === 'drifted' && r.before.kind !== 'drifted');
}

/** What would replace the drifted claims, and the cluster's $/h before and after. */
export interface DriftReplacement {
  /** The planner's result for the drifted nodes' pods on the nodes that stay plus new ones. */
  readonly plan: SchedulingResult;
  /** USD per hour of every launched NodeClaim today. */
  readonly dollarsPerHourBefore: number;
  /** Today's, less the drifted claims, plus the new NodeClaims'. */
  readonly dollarsPerHourAfter: number;
}

/**
 * What replaces `drifted` once drift has run its course: their reschedulable pods (not DaemonSet
 * or mirror pods; isReschedulable) planned by the provisioner's planner (plan-capacity.ts
 * `planCapacity`, the one `podlift plan` and the provisioner use) under the changed NodePools and
 * EC2NodeClasses, onto the nodes that stay (not drifted, not going away) and new NodeClaims.
 * Karpenter's drift replaces one candidate at a time, each simulated against the cluster as it
 * then is (kubernetes-sigs/karpenter pkg/controllers/disruption/drift.go `ComputeCommands`); this
 * is the end state all those commands lead to when every drifted node goes, planned at once — the
 * simulator's rollout shows the steps.
 */
export function planDriftReplacement(
  state: DriftPreviewState,
  change: DriftChange,
  rows: readonly ClaimDrift[],
  drifted: readonly ClaimDrift[],
): DriftReplacement {
  const going = new Set(drifted.flatMap((r) => (r.node ? [r.node] : [])));
  const after = changedState(state, change);
  const staying: StateNode[] = state.nodes.filter((n) => !going.has(n.name) && !n.deleting);
  const pods = state.nodes.filter((n) => going.has(n.name)).flatMap((n) => n.pods.filter(isReschedulable));
  const plan = state.catalog
    ? planCapacity(
        {
          pods: pods.map(({ nodeName: _bound, ...pod }) => pod),
          daemonSets: state.daemonSets,
          nodes: staying,
          nodePools: after.nodePools,
          nodeClasses: after.nodeClasses,
        },
        state.catalog,
      )
    : { placements: [], nodeClaims: [], unschedulable: [] };
  const before = sum(rows.map((r) => r.price));
  const removed = sum(drifted.map((r) => r.price));
  const added = sum(plan.nodeClaims.map((c) => c.price));
  return { plan, dollarsPerHourBefore: before, dollarsPerHourAfter: before - removed + added };
}

/** The state with the changed objects in place of (or beside) the cluster's. */
export function changedState<S extends Pick<ClusterSnapshot, 'nodePools' | 'nodeClasses'>>(
  state: S,
  change: DriftChange,
): S {
  return {
    ...state,
    nodePools: replaceByName(state.nodePools, change.nodePools ?? []),
    nodeClasses: replaceByName(state.nodeClasses, change.nodeClasses ?? []),
  };
}

function replaceByName<T extends { readonly name: string }>(
  current: readonly T[],
  changed: readonly T[],
): T[] {
  const byName = new Map(changed.map((c) => [c.name, c]));
  return [
    ...current.map((c) => byName.get(c.name) ?? c),
    ...changed.filter((c) => !current.some((o) => o.name === c.name)),
  ];
}

/** The claims with the hash annotations the loop writes first (hashRestamps), against today's objects. */
function restamped(state: DriftPreviewState): NodeClaim[] {
  const restamps = new Map(hashRestamps(state).map((r) => [r.nodeClaim, r.annotations]));
  return state.nodeClaims.map((c) => {
    const annotations = restamps.get(c.name);
    return annotations ? { ...c, annotations: { ...c.annotations, ...annotations } } : c;
  });
}

/** Selector terms whose resolution only EC2 knows. */
const SELECTOR_TERMS = ['amiSelectorTerms', 'subnetSelectorTerms', 'securityGroupSelectorTerms'] as const;

/**
 * A changed EC2NodeClass with new selector terms keeps today's resolution in the snapshot, which
 * would compare its claims with what the old terms selected: such a verdict is made unknown,
 * naming the terms, unless the hash already said drifted.
 */
function explainUnknown(
  verdict: DriftVerdict,
  claim: NodeClaim,
  change: DriftChange,
  state: Pick<ClusterSnapshot, 'nodeClasses'>,
): DriftVerdict {
  if (verdict.kind === 'drifted' && verdict.drift.reason !== 'AMIDrift') return verdict;
  const changed = change.nodeClasses?.find((c) => c.name === claim.spec.nodeClassRef.name);
  const current = state.nodeClasses.find((c) => c.name === claim.spec.nodeClassRef.name);
  if (!changed || !current) return verdict;
  const terms = SELECTOR_TERMS.filter((t) => JSON.stringify(changed[t]) !== JSON.stringify(current[t]));
  if (terms.length === 0) return verdict;
  return {
    kind: 'unknown',
    why: `EC2NodeClass ${changed.name}'s ${terms.join(', ')} changed: what they select only EC2 can tell`,
  };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
