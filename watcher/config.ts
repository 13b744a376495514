import * as z from 'zod';
import { parseEnvironment } from '../shared/core/manifests/environment';

/** The watcher's configuration, from its environment. */
export interface WatcherConfig {
  /** `CLUSTER_NAME`: carried in every event. */
  readonly clusterName: string;
  /** `EVENT_BUS_NAME`: the cluster's bus (name or ARN). */
  readonly eventBusName: string;
  /** `AWS_REGION`: the bus's region. */
  readonly region: string;
  /** `BATCH_IDLE_MS`, default 1000: both detail types. */
  readonly batchIdleMs: number;
  /** `BATCH_MAX_MS`, default 10000; at least BATCH_IDLE_MS: the `CapacityChanged` maximum. */
  readonly batchMaxMs: number;
  /** `PODS_PENDING_MAX_MS`, default 4000: the `PodsPending` maximum, and its leading edge's quiet time. */
  readonly podsPendingMaxMs: number;
  /** `PORT` of /healthz, /readyz and /metrics, default 8080. */
  readonly port: number;
}

/** Environment variables of the watcher, what each is for, and the default of optional ones. */
export const WATCHER_ENVIRONMENT = {
  CLUSTER_NAME: 'the cluster name carried in every event',
  EVENT_BUS_NAME: "the name or ARN of the cluster's EventBridge bus",
  AWS_REGION: 'the AWS region of the bus, e.g. us-east-1',
  BATCH_IDLE_MS: 'milliseconds after the last change before a batch is published (default 1000)',
  BATCH_MAX_MS:
    'milliseconds after the first capacity change by which its batch is published (default 10000)',
  PODS_PENDING_MAX_MS:
    'milliseconds by which a pending pod is published; the first after this long quiet goes at once (default 4000)',
  PORT: 'port of /healthz, /readyz and /metrics (default 8080)',
  KUBERNETES_SERVICE_HOST: 'set by Kubernetes in every pod: the watcher runs in-cluster',
  KUBERNETES_SERVICE_PORT: 'set by Kubernetes in every pod: the watcher runs in-cluster',
} as const;

type Variable = keyof typeof WATCHER_ENVIRONMENT;

const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

const required = (name: Variable, rule?: { pattern: RegExp; message: string }) => {
  const base = z.string({ error: `is missing: ${WATCHER_ENVIRONMENT[name]}` });
  return rule ? base.regex(rule.pattern, { error: rule.message }) : base;
};

const integer = (min: number, max: number, unit: string, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number of ${unit} from ${min} to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    )
    .optional()
    .transform((value) => value ?? fallback);

const environmentSchema = z
  .object({
    CLUSTER_NAME: required('CLUSTER_NAME', {
      pattern: CLUSTER_NAME,
      message: 'must be 1-100 letters, digits, hyphens or underscores, starting with a letter or digit',
    }),
    EVENT_BUS_NAME: required('EVENT_BUS_NAME'),
    AWS_REGION: required('AWS_REGION', {
      pattern: REGION,
      message: 'must be a region name such as us-east-1',
    }),
    BATCH_IDLE_MS: integer(1, 600_000, 'milliseconds', 1000),
    BATCH_MAX_MS: integer(1, 3_600_000, 'milliseconds', 10_000),
    PODS_PENDING_MAX_MS: integer(1, 3_600_000, 'milliseconds', 4000),
    PORT: integer(1, 65_535, 'a TCP port', 8080),
    KUBERNETES_SERVICE_HOST: required('KUBERNETES_SERVICE_HOST'),
    KUBERNETES_SERVICE_PORT: required('KUBERNETES_SERVICE_PORT'),
  })
  .refine((env) => env.BATCH_MAX_MS >= env.BATCH_IDLE_MS, {
    error: 'must be at least BATCH_IDLE_MS',
    path: ['BATCH_MAX_MS'],
  });

/**
 * Reads the watcher's configuration from `env`, blank values counting as unset.
 * @throws ConfigurationError naming every missing or bad variable and its value.
 */
export function parseWatcherConfig(env: Readonly<Record<string, string | undefined>>): WatcherConfig {
  const parsed = parseEnvironment(environmentSchema, WATCHER_ENVIRONMENT, env, 'watcher');
  return {
    clusterName: parsed.CLUSTER_NAME,
    eventBusName: parsed.EVENT_BUS_NAME,
    region: parsed.AWS_REGION,
    batchIdleMs: parsed.BATCH_IDLE_MS,
    batchMaxMs: parsed.BATCH_MAX_MS,
    podsPendingMaxMs: parsed.PODS_PENDING_MAX_MS,
    port: parsed.PORT,
  };
}
