import { z } from 'zod';

/**
 * The scenario file format (YAML): the world to start from, a timeline of steps, and the
 * expectations checked at the end. Documented in README.md ("Simulator"); examples under
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

const name = z.string().min(1);
const manifest = z
  .object({
    apiVersion: z.string().min(1),
    kind: z.string().min(1),
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
