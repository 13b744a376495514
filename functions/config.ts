import * as z from 'zod';
import { parseEnvironment } from '../shared/core/manifests/environment';
import {
  DEFAULT_FEATURE_GATES,
  type FeatureGates,
  parseFeatureGates,
} from '../shared/core/model/feature-gates';

/** How the functions reach the cluster's API server. */
export type ClusterAccessMode = 'eks' | 'kops';

/** What rebalance recommendations do: a Kubernetes Event, or cordon and replace the node. */
export type RebalanceAction = 'event' | 'replace';

/** The functions' configuration, from their environment (the CDK stack sets it). */
export interface PodliftConfig {
  /** `CLUSTER_NAME`: the cluster every function serves, in tags, names and the Lease. */
  readonly clusterName: string;
  /** `AWS_REGION`: set by Lambda. */
  readonly region: string;
  /** `EVENT_BUS_NAME`: the cluster's bus, where loops publish hints for one another. */
  readonly eventBusName: string;
  /** `CLUSTER_ACCESS`: `eks` (DescribeCluster + IAM token, default) or `kops` (an SSM SecureString). */
  readonly clusterAccess: ClusterAccessMode;
  /** `LEASE_NAMESPACE` / `LEASE_NAME`: the cluster Lease, default `podlift/podlift`. */
  readonly leaseNamespace: string;
  readonly leaseName: string;
  /** `REBALANCE_ACTION`: `event` (default) or `replace`. */
  readonly rebalanceAction: RebalanceAction;
  /** `FEATURE_GATES`: Karpenter's syntax, `NodeRepair=true,ReservedCapacity=false`; at Karpenter's defaults (ReservedCapacity on, the others off). */
  readonly featureGates: FeatureGates;
}

/** Environment variables of the functions, what each is for, and the default of optional ones. */
export const FUNCTION_ENVIRONMENT = {
  CLUSTER_NAME: 'the name of the cluster the functions serve',
  AWS_REGION: 'the AWS region (Lambda sets it)',
  EVENT_BUS_NAME: "the name or ARN of the cluster's EventBridge bus",
  CLUSTER_ACCESS: 'eks (default) or kops: how the functions reach the API server',
  LEASE_NAMESPACE: 'namespace of the cluster Lease (default podlift)',
  LEASE_NAME: 'name of the cluster Lease (default podlift)',
  REBALANCE_ACTION: 'event (default) or replace: what a rebalance recommendation does',
  FEATURE_GATES:
    "Karpenter feature gates NodeRepair, SpotToSpotConsolidation and ReservedCapacity, and podlift's GlobalConsolidation, e.g. NodeRepair=true (default: ReservedCapacity on, the others off)",
} as const;

type Variable = keyof typeof FUNCTION_ENVIRONMENT;

const required = (name: Variable, pattern?: RegExp, message?: string) => {
  const base = z.string({ error: `is missing: ${FUNCTION_ENVIRONMENT[name]}` });
  return pattern ? base.regex(pattern, { error: message ?? 'is not valid' }) : base;
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const environmentSchema = z.object({
  CLUSTER_NAME: required(
    'CLUSTER_NAME',
    /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/,
    'must be 1-100 letters, digits, hyphens or underscores, starting with a letter or digit',
  ),
  AWS_REGION: required('AWS_REGION', /^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be a region name such as us-east-1'),
  EVENT_BUS_NAME: required('EVENT_BUS_NAME'),
  CLUSTER_ACCESS: z.enum(['eks', 'kops'], { error: 'must be eks or kops' }).default('eks'),
  LEASE_NAMESPACE: z.string().regex(DNS_LABEL, { error: 'must be a DNS label' }).default('podlift'),
  LEASE_NAME: z.string().regex(DNS_LABEL, { error: 'must be a DNS label' }).default('podlift'),
  REBALANCE_ACTION: z.enum(['event', 'replace'], { error: 'must be event or replace' }).default('event'),
  FEATURE_GATES: z
    .string()
    .default('')
    .refine((text) => parseFeatureGates(text) !== undefined, {
      error: 'must be comma-separated Name=true|false pairs, e.g. NodeRepair=true',
    }),
});

/**
 * Reads the functions' configuration from `env`.
 * @throws ConfigurationError naming every missing or bad variable and its value.
 */
export function parseFunctionConfig(
  env: Readonly<Record<string, string | undefined>>,
  loop: string,
): PodliftConfig {
  const parsed = parseEnvironment(environmentSchema, FUNCTION_ENVIRONMENT, env, `${loop} function`);
  return {
    clusterName: parsed.CLUSTER_NAME,
    region: parsed.AWS_REGION,
    eventBusName: parsed.EVENT_BUS_NAME,
    clusterAccess: parsed.CLUSTER_ACCESS,
    leaseNamespace: parsed.LEASE_NAMESPACE,
    leaseName: parsed.LEASE_NAME,
    rebalanceAction: parsed.REBALANCE_ACTION,
    featureGates: parseFeatureGates(parsed.FEATURE_GATES) ?? DEFAULT_FEATURE_GATES,
  };
}
