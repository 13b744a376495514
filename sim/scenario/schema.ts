import { z } from 'zod';
import { parseFeatureGates } from '../../shared/core/model/feature-gates';

/**
 * The scenario file format (YAML): the world to start from, a timeline of steps, and the
 * expectations checked at the end. Documented in docs/simulator.md ("Scenario files"); examples under
 * examples/scenarios/.
 */

/** `90s`, `5m`, `1h30m`, `250ms` or a number of seconds. */
const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;
export const duration = z
  .union([z.number().nonnegative(), z.string().regex(DURATION, 'a duration like 90s, 5m or 1h30m')])
  .transform((value) => (typeof value === 'number' ? value * 1000 : parseDuration(value)));

/** Milliseconds of a duration string (already validated by {@link DURATION}). */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(match[1]) * units[match[2]];
  return total;
}

/** `1h30m`, `5m`, `90s` → `1m30s`, `250ms`: a duration as a scenario file writes it. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}

const name = z.string().min(1);
/** The store resource of each manifest kind a scenario may seed into the API server. */
export const SEEDED_KINDS: Readonly<Record<string, string>> = {
  NodePool: 'nodepools.karpenter.sh',
  EC2NodeClass: 'ec2nodeclasses.karpenter.k8s.aws',
  NodeClaim: 'nodeclaims.karpenter.sh',
  Pod: 'pods',
  Node: 'nodes',
  PodDisruptionBudget: 'poddisruptionbudgets.policy',
  DaemonSet: 'daemonsets.apps',
  Namespace: 'namespaces',
  VolumeAttachment: 'volumeattachments.storage.k8s.io',
};
/** Kinds the workload controller stand-in runs instead. */
export const WORKLOAD_KINDS = ['Deployment', 'Job'] as const;
const MANIFEST_KINDS = [...Object.keys(SEEDED_KINDS), ...WORKLOAD_KINDS];

const manifest = z
  .object({
    apiVersion: z.string().min(1),
    kind: z.string().refine((kind) => MANIFEST_KINDS.includes(kind), {
      message: `a kind the simulator runs (${MANIFEST_KINDS.join(', ')})`,
    }),
    metadata: z.object({ name, namespace: z.string().optional() }).passthrough(),
  })
  .passthrough();

const selector = z
  .object({
    instanceType: z.string().optional(),
    zone: z.string().optional(),
    capacityType: z.enum(['spot', 'on-demand']).optional(),
  })
  .strict();

/** One action of the timeline; exactly one key per step besides `at`. */
/** The spot instance an `interrupt` or `rebalance` step names: by NodeClaim, by id, or any. */
const spotInstance = z
  .object({
    nodeClaim: z.string().optional(),
    instanceId: z.string().optional(),
    spot: z.literal('any').optional(),
  })
  .strict()
  .refine((v) => [v.nodeClaim, v.instanceId, v.spot].filter((x) => x !== undefined).length === 1, {
    message: 'name exactly one of nodeClaim, instanceId or spot: any',
  });

/** Names exactly one of the listed keys. */
const exactlyOne =
  (keys: readonly string[]) =>
  (value: Record<string, unknown>): boolean =>
    keys.filter((k) => value[k] !== undefined).length === 1;

/** The node a `kubeletDies` or `impairInstance` step names: by Node, NodeClaim, instance id, or any. */
const nodeTarget = z
  .object({
    node: z.string().optional(),
    nodeClaim: z.string().optional(),
    instanceId: z.string().optional(),
    instance: z.literal('any').optional(),
  })
  .strict()
  .refine(exactlyOne(['node', 'nodeClaim', 'instanceId', 'instance']), {
    message: 'name exactly one of node, nodeClaim, instanceId or instance: any',
  });

const checkState = z.enum(['ok', 'impaired']);

const actions = {
  scale: z
    .object({
      deployment: name,
      namespace: z.string().default('default'),
      replicas: z.number().int().nonnegative(),
    })
    .strict(),
  apply: manifest,
  delete: z
    .object({
      kind: z.enum(['Pod', 'Deployment', 'NodePool', 'EC2NodeClass', 'PodDisruptionBudget', 'Node']),
      name,
      namespace: z.string().default('default'),
    })
    .strict(),
  patch: z
    .object({ kind: z.enum(['NodePool', 'EC2NodeClass']), name, merge: z.record(z.string(), z.unknown()) })
    .strict(),
  interrupt: spotInstance,
  rebalance: spotInstance,
  scheduledChange: z
    .object({
      nodeClaim: z.string().optional(),
      instanceId: z.string().optional(),
      instance: z.literal('any').optional(),
      /** How long before EC2 retires the instance. The default is the parsed value, in ms (10 minutes). */
      in: duration.default(600_000),
      eventTypeCode: z
        .string()
        .regex(
          /^AWS_EC2_[A-Z_]+$/,
          'an EC2 Health event type like AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED',
        )
        .optional(),
    })
    .strict()
    .refine((v) => [v.nodeClaim, v.instanceId, v.instance].filter((x) => x !== undefined).length === 1, {
      message: 'name exactly one of nodeClaim, instanceId or instance: any',
    }),
  unavailable: selector.extend({ for: duration.optional() }).strict(),
  throttle: z
    .object({ operation: z.string().default('CreateFleet'), times: z.number().int().positive() })
    .strict(),
  crash: z
    .object({ function: z.enum(['provisioner', 'disruption', 'termination', 'interruption']) })
    .strict(),
  newAmi: z.object({ arch: z.enum(['amd64', 'arm64']).default('amd64') }).strict(),
  dropWatches: z.literal(true),
  log: z.string(),
  kubeletDies: nodeTarget,
  neverRegisters: z
    .object({ instanceType: z.string().optional(), nodeClass: z.string().optional() })
    .strict()
    .refine(exactlyOne(['instanceType', 'nodeClass']), {
      message: 'name exactly one of instanceType or nodeClass',
    }),
  stuckFinalizer: z
    .object({
      pod: z.string().optional(),
      deployment: z.string().optional(),
      namespace: z.string().default('default'),
      finalizer: z.string().default('sim.podlift.dev/stuck'),
    })
    .strict()
    .refine(exactlyOne(['pod', 'deployment']), { message: 'name exactly one of pod or deployment' }),
  leakInstance: z
    .object({
      instanceType: z.string().default('m5.large'),
      zone: z.string().optional(),
      /** Tagged as podlift tags its own (cluster `owned` and a NodePool); false: the cluster tag only, as a managed node group's. */
      taggedForCluster: z.boolean().default(true),
      name: z.string().optional(),
    })
    .strict(),
  terminateInstance: nodeTarget,
  impairInstance: nodeTarget.and(
    z.object({ instanceStatus: checkState.default('impaired'), systemStatus: checkState.default('ok') }),
  ),
  doNotDisrupt: z
    .object({ deployment: name, namespace: z.string().default('default'), value: z.string().default('true') })
    .strict(),
  /**
   * The NodePool's NodeClaims as a cluster moving from Karpenter has them: no
   * `podlift.dev/hourly-price`, Karpenter's hash versions and its hashes.
   */
  adoptFromKarpenter: z.object({ nodePool: name }).strict(),
  /** kube-scheduler binds nothing and marks nothing for this long (sim/world/kube-scheduler.ts `down`). */
  kubeSchedulerDown: z.object({ for: duration }).strict(),
  volumeAttachment: z
    .object({
      node: z.string().optional(),
      nodeClaim: z.string().optional(),
      instanceId: z.string().optional(),
      instance: z.literal('any').optional(),
      count: z.number().int().positive().default(1),
      /** How long after its node's deletion the attach-detach controller takes to detach them. @default never */
      detachAfter: duration.optional(),
    })
    .strict()
    .refine(exactlyOne(['node', 'nodeClaim', 'instanceId', 'instance']), {
      message: 'name exactly one of node, nodeClaim, instanceId or instance: any',
    }),
} as const;

/** The action keys a step may have. */
export const ACTION_KEYS = Object.keys(actions) as (keyof typeof actions)[];

export const step = z
  .object({
    at: duration,
    scale: actions.scale.optional(),
    apply: actions.apply.optional(),
    delete: actions.delete.optional(),
    patch: actions.patch.optional(),
    interrupt: actions.interrupt.optional(),
    rebalance: actions.rebalance.optional(),
    scheduledChange: actions.scheduledChange.optional(),
    unavailable: actions.unavailable.optional(),
    throttle: actions.throttle.optional(),
    crash: actions.crash.optional(),
    newAmi: actions.newAmi.optional(),
    dropWatches: actions.dropWatches.optional(),
    log: actions.log.optional(),
    kubeletDies: actions.kubeletDies.optional(),
    neverRegisters: actions.neverRegisters.optional(),
    stuckFinalizer: actions.stuckFinalizer.optional(),
    leakInstance: actions.leakInstance.optional(),
    terminateInstance: actions.terminateInstance.optional(),
    impairInstance: actions.impairInstance.optional(),
    doNotDisrupt: actions.doNotDisrupt.optional(),
    volumeAttachment: actions.volumeAttachment.optional(),
    adoptFromKarpenter: actions.adoptFromKarpenter.optional(),
    kubeSchedulerDown: actions.kubeSchedulerDown.optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    const present = ACTION_KEYS.filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    if (present.length !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `a step has exactly one action (${ACTION_KEYS.join(', ')}); found ${present.length === 0 ? 'none' : present.join(', ')}`,
      });
  });

const bound = z.object({ min: z.number().optional(), max: z.number().optional() }).strict();

/** A point in the run: before / not before a time, or within a span after something. */
const when = z
  .object({
    /** Happened at or before this time of the run. */
    before: duration.optional(),
    /** Happened at or after this time of the run (not before it). */
    notBefore: duration.optional(),
  })
  .strict();

/** Something the run records: an Event reason (on an object kind) or a NodeClaim's deletion. */
const occurrence = z
  .object({
    event: z.string().optional(),
    /** The involved object's kind: NodeClaim, Node, Pod… (any when absent). */
    kind: z.string().optional(),
    nodeClaimDeleted: z.literal(true).optional(),
  })
  .strict();

/** What must hold at the end of the run. */
export const expectations = z
  .object({
    /** Every pod is running (none pending). */
    allPodsRunning: z.boolean().optional(),
    /** No invariant was violated during the run. @default true */
    noViolations: z.boolean().default(true),
    nodes: bound.optional(),
    nodeClaims: bound.optional(),
    dollarsPerHour: bound.optional(),
    interruptionsSurvived: bound.optional(),
    consolidations: bound.optional(),
    drifted: bound.optional(),
    /** Bound on each pod's time from creation to running, e.g. `3m`. */
    timeToCapacityP99: duration.optional(),
    /** Pods still pending at the end: how many, and which (a pod's name, or a Deployment's for any of its pods). */
    pendingPods: bound
      .extend({ names: z.array(z.string()).optional() })
      .strict()
      .optional(),
    /** Nodes (registered, not being deleted) by NodePool, instance type, zone and capacity type. */
    nodesBy: z
      .array(
        bound
          .extend({
            nodePool: z.string().optional(),
            instanceType: z.string().optional(),
            zone: z.string().optional(),
            capacityType: z.enum(['spot', 'on-demand', 'reserved']).optional(),
          })
          .strict(),
      )
      .optional(),
    /** EC2 instances pending or running at the end, by their Name tag, NodePool tag or status checks. */
    instances: z
      .array(
        bound
          .extend({
            name: z.string().optional(),
            nodePool: z.string().optional(),
            /** Only instances whose instance or system status check is impaired. */
            impaired: z.literal(true).optional(),
          })
          .strict(),
      )
      .optional(),
    /** No pod annotated `karpenter.sh/do-not-disrupt: "true"` was evicted by podlift. */
    noDoNotDisruptEvicted: z.boolean().optional(),
    /** Every NodeClaim whose deletion was asked for was gone (finalized) within this long. */
    nodeClaimsFinalizedWithin: duration.optional(),
    /**
     * Events recorded: a reason (on an object kind, on objects of a name — a pod's, or a
     * Deployment's for any of its pods — with a message containing a text), counted.
     */
    events: z
      .array(
        bound
          .extend({
            reason: z.string(),
            kind: z.string().optional(),
            name: z.string().optional(),
            message: z.string().optional(),
          })
          .strict(),
      )
      .optional(),
    /**
     * Bindings during the run of the named pods (a pod's name, or a Deployment's for any of its
     * pods) to nodes of a NodePool, instance type, zone and capacity type, counted: where pods
     * went, including nodes they were evicted from later.
     */
    bindings: z
      .array(
        bound
          .extend({
            pods: z.array(z.string()).nonempty(),
            nodePool: z.string().optional(),
            instanceType: z.string().optional(),
            zone: z.string().optional(),
            capacityType: z.enum(['spot', 'on-demand']).optional(),
          })
          .strict(),
      )
      .optional(),
    /** Something happened (first) before, or not before, a time of the run. */
    happened: z
      .array(
        occurrence
          .extend(when.shape)
          .strict()
          .refine((h) => (h.event === undefined) !== (h.nodeClaimDeleted === undefined), {
            message: 'name exactly one of event or nodeClaimDeleted',
          })
          .refine((h) => h.before !== undefined || h.notBefore !== undefined, {
            message: 'give before, notBefore or both',
          }),
      )
      .optional(),
  })
  .strict();

export const scenario = z
  .object({
    name,
    description: z.string().optional(),
    /** Total virtual time; the timeline's last step must fall within it. */
    duration,
    instanceTypes: z.array(z.string()).nonempty().optional(),
    environment: z.record(z.string(), z.string()).optional(),
    /**
     * Karpenter's feature gates for the functions (`FEATURE_GATES`), in its syntax, e.g.
     * `SpotToSpotConsolidation=true`; each at Karpenter's default when absent.
     */
    featureGates: z
      .string()
      .refine((text) => parseFeatureGates(text) !== undefined, {
        error: 'must be comma-separated Name=true|false pairs, e.g. SpotToSpotConsolidation=true',
      })
      .optional(),
    /**
     * Capacity reservations the account has in EC2 (an EC2NodeClass selects them with
     * capacityReservationSelectorTerms): `default` On-Demand Capacity Reservations or
     * `capacity-block`s, which end `endsAt` into the run.
     */
    capacityReservations: z
      .array(
        z
          .object({
            id: z.string().regex(/^cr-[0-9a-f]{17}$/, { error: 'must be cr- and 17 hex digits' }),
            instanceType: z.string(),
            zone: z.string(),
            count: z.number().int().positive(),
            type: z.enum(['default', 'capacity-block']).default('default'),
            endsAt: duration.optional(),
            tags: z.record(z.string(), z.string()).optional(),
          })
          .strict(),
      )
      .default([]),
    manifests: z.array(manifest).default([]),
    timeline: z.array(step).default([]),
    expect: expectations.default({ noViolations: true }),
  })
  .strict();

/** A parsed scenario. */
export type Scenario = z.output<typeof scenario>;
/** A parsed step. */
export type Step = z.output<typeof step>;
/** Parsed expectations. */
export type Expectations = z.output<typeof expectations>;
