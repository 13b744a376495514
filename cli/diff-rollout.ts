/**
 * The port between `podlift diff` and whatever plays its rollout. The command (cli/) decides what
 * drifts and what replaces it from core alone; playing the rollout needs the simulator (sim/),
 * which product code may not import (test/architecture.test.ts). So the command names what it
 * needs here, in plain data, and the process entry that may import both (sim/cli/podlift.ts)
 * hands it the simulator's player.
 */

/** A pod of the cluster as the rollout seeds it. */
export interface RolloutPod {
  readonly namespace: string;
  readonly name: string;
  /**
   * The controller that recreates it when evicted (`ReplicaSet web-7d4b9`), read from the pod's
   * name as its controller generates it; undefined for a pod no controller owns.
   */
  readonly owner?: { readonly kind: string; readonly name: string };
  /** Requests as Kubernetes quantities (`cpu: "500m"`). */
  readonly requests: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Readonly<Record<string, unknown>>[];
}

/** A launched NodeClaim and the pods on its node. */
export interface RolloutNode {
  readonly nodeClaim: string;
  /** The Node's name in the cluster (the simulator names its own). */
  readonly node?: string;
  readonly nodePool: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
  /** The static analysis says the change drifts it. */
  readonly drifts: boolean;
  readonly pods: readonly RolloutPod[];
}

/** A PodDisruptionBudget as the rollout seeds it. */
export interface RolloutBudget {
  readonly namespace: string;
  readonly name: string;
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
}

/** Everything a rollout starts from, as plain JSON-able data. */
export interface RolloutInput {
  /** NodePool and EC2NodeClass objects as the cluster has them today (Kubernetes JSON). */
  readonly nodePools: readonly Readonly<Record<string, unknown>>[];
  readonly nodeClasses: readonly Readonly<Record<string, unknown>>[];
  /** The changed NodePool and EC2NodeClass objects, applied once the world is up. */
  readonly changed: readonly Readonly<Record<string, unknown>>[];
  readonly nodes: readonly RolloutNode[];
  readonly budgets: readonly RolloutBudget[];
  /** Stop playing after this much virtual time from the change. */
  readonly maxDurationMs: number;
}

/** One drifted NodeClaim's way through the rollout. */
export interface RolloutClaim {
  readonly nodeClaim: string;
  readonly node?: string;
  /** Virtual ms from the change to its disruption (tainted), and to its NodeClaim gone. */
  readonly disruptedAtMs?: number;
  readonly goneAtMs?: number;
}

/** Something that held the rollout back, and for how long. */
export interface RolloutBlock {
  /** The NodeClaim (or pod) held. */
  readonly subject: string;
  readonly why: string;
  readonly firstAtMs: number;
  readonly lastAtMs: number;
}

/** How the rollout went in the simulator. */
export interface RolloutReport {
  /** Every drifted NodeClaim was replaced within maxDurationMs. */
  readonly finished: boolean;
  /** Virtual ms from the change until the last drifted NodeClaim was gone (or the cut-off). */
  readonly durationMs: number;
  /** The most drifted nodes being disrupted at once. */
  readonly maxConcurrent: number;
  readonly claims: readonly RolloutClaim[];
  /** NodeClaims created after the change: what replaced the drifted ones. */
  readonly replacements: readonly {
    readonly nodeClaim: string;
    readonly instanceType: string;
    readonly zone: string;
    readonly capacityType: string;
  }[];
  /** Pods evicted from drifted nodes: namespace/name and the NodeClaim they left. */
  readonly podsMoved: readonly { readonly pod: string; readonly from: string }[];
  readonly blocks: readonly RolloutBlock[];
  /** Pods still pending at the end. */
  readonly pendingAtEnd: number;
  /** $/h of the instances running at the start and at the end (the simulated region's prices). */
  readonly dollarsPerHourStart: number;
  readonly dollarsPerHourEnd: number;
  /** What the simulator could not carry over, in words. */
  readonly notes: readonly string[];
}

/** Plays a rollout: the simulator's, injected by the process entry. */
export type RolloutPlayer = (input: RolloutInput) => Promise<RolloutReport>;
