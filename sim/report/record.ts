/**
 * What a simulation run records for its summary and its HTML report: samples of the cluster over
 * virtual time and the decisions the functions took. The player fills it; the report and the
 * summary only read it, so either can change without the other.
 */

/** The cluster at one instant of virtual time. */
export interface ClusterSample {
  /** Virtual milliseconds since the scenario started. */
  readonly at: number;
  /** Nodes that exist (registered or launching), by instance type. */
  readonly nodesByType: Readonly<Record<string, number>>;
  /** Pods not yet bound to a node. */
  readonly pendingPods: number;
  /** Pods bound and running. */
  readonly runningPods: number;
  /** What the cluster's instances cost now, $/hour. */
  readonly dollarsPerHour: number;
  /** Requested ÷ allocatable over initialized nodes, 0..1. */
  readonly cpuUtilisation: number;
  readonly memoryUtilisation: number;
}

/** Something podlift (or the world) did, for the decisions timeline and the log. */
export interface DecisionEntry {
  readonly at: number;
  /** Who acted: a function (`provisioner`, `interruption`, `disruption`, `termination`) or the world (`ec2`, `kubelet`, `scenario`, …). */
  readonly actor: string;
  /** A short kind, e.g. `launched`, `registered`, `interrupted`, `consolidated`, `drained`, `terminated`. */
  readonly kind: string;
  /** One human line, Karpenter-log style. */
  readonly message: string;
  /** $/hour saved, for consolidation decisions. */
  readonly savedDollarsPerHour?: number;
  /** Nodes taken, for voluntary disruption decisions (consolidation, emptiness, drift). */
  readonly disruptedNodes?: number;
}

/** A whole run. */
export interface SimulationRecord {
  readonly scenario: string;
  /** Virtual milliseconds the run covered. */
  readonly durationMs: number;
  readonly samples: readonly ClusterSample[];
  readonly decisions: readonly DecisionEntry[];
  /** Per pod: virtual milliseconds from creation to running (pods that never ran are left out). */
  readonly timeToCapacityMs: readonly number[];
  readonly interruptionsSurvived: number;
  /** Expectations of the scenario and whether they held. */
  readonly expectations: readonly {
    readonly description: string;
    readonly held: boolean;
    readonly detail?: string;
  }[];
}
