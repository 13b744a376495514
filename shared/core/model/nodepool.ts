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
    /** Default WhenEmptyOrUnderutilized. */
    readonly consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized';
    /** A Go duration or "Never". Default "0s". */
    readonly consolidateAfter: string;
    /** Default [{ nodes: "10%" }]. */
    readonly budgets: readonly DisruptionBudget[];
  };
  /** spec.limits in canonical units (cpu millicores, memory bytes, nodes as a count, ...); absent = no limit. */
  readonly limits: Resources;
  /** Higher is preferred; default 0. */
  readonly weight: number;
  /** Static NodePools (spec.replicas): a fixed node count instead of pod-driven provisioning. */
  readonly replicas?: number;
}

/** The resource name under which NodePool limits count nodes. */
export const NODES_LIMIT = 'nodes';
