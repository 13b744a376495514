import type { NodeSelectorRequirement } from './requirements';
import type { Resources } from './resources';
import type { Taint } from './taints';

/** Reference from a NodePool to its node class (spec.template.spec.nodeClassRef). */
export interface NodeClassRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

/** One disruption budget (spec.disruption.budgets[]). */
export interface DisruptionBudget {
  /** A count ("5") or a percentage ("10%"). */
  readonly nodes: string;
  /** Cron schedule during which the budget is active; absent = always. */
  readonly schedule?: string;
  /** How long it is active after each schedule hit, e.g. "1h30m". */
  readonly duration?: string;
  /** Disruption reasons it applies to; absent = all. */
  readonly reasons?: readonly ('Underutilized' | 'Empty' | 'Drifted')[];
}

/**
 * A validated karpenter.sh/v1 NodePool with Karpenter's defaults applied. Field names follow
 * the CRD; quantities are parsed into canonical units.
 */
export interface NodePool {
  readonly name: string;
  readonly uid?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly template: {
    /** Labels every node of this pool carries (spec.template.metadata.labels). */
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
    readonly nodeClassRef: NodeClassRef;
    readonly requirements: readonly NodeSelectorRequirement[];
    readonly taints: readonly Taint[];
    readonly startupTaints: readonly Taint[];
    /** A Go duration ("720h") or "Never". Default "720h". */
    readonly expireAfter: string;
    /** A Go duration; absent = wait for pods forever. */
    readonly terminationGracePeriod?: string;
  };
  readonly disruption: {
    /**
     * Default WhenEmptyOrUnderutilized. Balanced consolidates underutilized nodes too, but only
     * moves whose savings are worth their disruption (disruption/balanced.ts).
     */
    readonly consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
    /** A Go duration or "Never". Default "0s". */
    readonly consolidateAfter: string;
    /** Default [{ nodes: "10%" }]. */
    readonly budgets: readonly DisruptionBudget[];
    /**
     * The k of podlift's global consolidation threshold (under the `GlobalConsolidation` gate
     * every consolidation move must score at least 1/k, as Balanced scores a move), from the
     * NodePool's `podlift.dev/global-consolidation-k` annotation; absent, Balanced's 2.
     */
    readonly globalConsolidationK?: number;
    /**
     * How long the NodePool must have been settled before its `globalConsolidationK` applies
     * (a duration, from `podlift.dev/global-consolidation-settle-after`); absent, 3 minutes.
     */
    readonly globalConsolidationSettleAfter?: string;
  };
  /**
   * The launch price band as a fraction (0.25 for "25%"), from the NodePool's
   * `podlift.dev/launch-price-band` annotation: a NodeClaim keeps only the options priced within
   * it above its cheapest (provisioning/price-band.ts); absent, all of them.
   */
  readonly launchPriceBand?: number;
  /** spec.limits in canonical units (cpu millicores, memory bytes, nodes as a count, ...); absent = no limit. */
  readonly limits: Resources;
  /** Higher is preferred; default 0. */
  readonly weight: number;
  /** Static NodePools (spec.replicas): a fixed node count instead of pod-driven provisioning. */
  readonly replicas?: number;
}

/** The resource name under which NodePool limits count nodes. */
export const NODES_LIMIT = 'nodes';

/** The node class podlift launches through: NodePools referring to anything else are not podlift's. */
export const EC2_NODE_CLASS_GROUP = 'karpenter.k8s.aws';
export const EC2_NODE_CLASS_KIND = 'EC2NodeClass';

/**
 * Whether podlift manages this NodePool: its nodeClassRef is a `karpenter.k8s.aws/EC2NodeClass`
 * (Karpenter's IsManaged: the group/kind is one its cloud provider supports). EKS Auto Mode
 * pools (`eks.amazonaws.com/NodeClass`) are another controller's even when the names match.
 */
export function isManagedNodePool(pool: Pick<NodePool, 'template'>): boolean {
  const { group, kind } = pool.template.nodeClassRef;
  return group === EC2_NODE_CLASS_GROUP && kind === EC2_NODE_CLASS_KIND;
}

/** Whether a NodePool is static (`spec.replicas`): a fixed node count, no pod-driven provisioning (Karpenter's IsStatic). */
export function isStaticNodePool(pool: Pick<NodePool, 'replicas'>): boolean {
  return pool.replicas !== undefined;
}

/**
 * NodePools in the order the scheduler tries them: higher weight first, and among equal weights
 * the name later in the alphabet first (Karpenter's OrderByWeight, pkg/utils/nodepool).
 */
export function orderByWeight<T extends Pick<NodePool, 'weight' | 'name'>>(pools: readonly T[]): T[] {
  return [...pools].sort((a, b) => b.weight - a.weight || (a.name > b.name ? -1 : a.name < b.name ? 1 : 0));
}
