import type { Catalog } from '../shared/core/catalog/instance-type';
import { withinPriceBand } from '../shared/core/provisioning/price-band';
import {
  instanceTypesByNodePool,
  type PlanCapacityOptions,
  planCapacity,
} from '../shared/core/scheduling/plan-capacity';
import type { SchedulingResult } from '../shared/core/scheduling/types';
import { schedulingCapacity } from '../shared/core/state/cluster-snapshot';
import {
  parseCapacityReservations,
  reservationsForPlan,
  reservationsNotPlannedNote,
} from './capacity-reservations';
import type { ClusterSnapshot } from './cluster-snapshot';
import { loadCluster } from './cluster-source';
import {
  CLUSTER_OPTIONS,
  type CliIO,
  clusterChoice,
  clusterIO,
  loadCatalog,
  parseCommandArgs,
  readInput,
  spotPriceWarnings,
  UsageError,
} from './command-support';
import { type PlanInput, readPlanInput } from './plan-input';
import { formatPlanJson, planToJson } from './plan-json';
import { planNotes } from './plan-notes';
import { formatPlanTable } from './plan-table';
import { parseSpotPrices } from './spot-prices';

/** `podlift plan`'s help. */
export const PLAN_HELP = `Usage: podlift plan [<file.yaml | ->] [options]

Plans the nodes podlift would launch for pending pods, from the bundled EC2 instance catalog
and prices. With no file it reads the live cluster of the current kubeconfig context, read-only
(NodePools, EC2NodeClasses, Nodes, Pods, DaemonSets). A file is a kubectl-style multi-document
YAML file ('-' reads standard input; 'kind: List' is flattened) with these kinds:

  NodePool, EC2NodeClass                  karpenter.sh/v1, karpenter.k8s.aws/v1
  Pod                                     pending, or bound to a Node by spec.nodeName
  Deployment, ReplicaSet, StatefulSet     spec.replicas pods (default 1), named <name>-<i>
  Job                                     spec.parallelism pods (default 1, at most completions)
  DaemonSet                               its pod runs on every eligible node
  Node                                    existing capacity: labels, allocatable, taints
  InstanceGroup, Cluster                  kops.k8s.io/v1alpha2: each manager: Karpenter
                                          InstanceGroup plans as the EC2NodeClass and
                                          NodePool kOps generates (see podlift kops)

Other kinds are skipped with a warning.

Options:
      --kubeconfig <file>    Live cluster: this kubeconfig (default: KUBECONFIG, ~/.kube/config)
      --context <name>       Live cluster: this context (default: the current context)
      --region <region>      AWS region of instance types and prices (default us-east-1)
  -o, --output <format>      table or json (default table)
      --spot-prices <file>   JSON of spot prices in USD/hour, replacing the estimates:
                             {"m5.large": 0.035} or {"m5.large": {"us-east-1a": 0.035}}
      --capacity-reservations <file>
                             JSON of 'aws ec2 describe-capacity-reservations --output json':
                             the free instances of the reservations EC2NodeClasses select,
                             planned first as capacity type reserved
  -h, --help                 Show this help

Spot prices are estimated as on-demand x (1 - Spot Instance Advisor savings); pass
--spot-prices for today's prices. An EC2NodeClass's status does not say how many instances its
capacity reservations have free: without --capacity-reservations no reserved capacity is planned.

Exit codes: 0 planned (even with unschedulable pods), 2 invalid input or usage, 1 other failure.

Examples:
  podlift plan examples/inflate.yaml
  podlift plan --context prod
  aws ec2 describe-capacity-reservations --output json > reservations.json
  podlift plan cluster.yaml --capacity-reservations reservations.json
  kubectl get nodepools,ec2nodeclasses,nodes,daemonsets,pods -A -o yaml | podlift plan - -o json
`;

/** `podlift plan`: plans the pending pods of a file or a live cluster. */
export async function planCommand(args: string[], io: CliIO): Promise<void> {
  const { values, positionals } = parseCommandArgs('plan', args, {
    region: { type: 'string', default: 'us-east-1' },
    output: { type: 'string', short: 'o', default: 'table' },
    'spot-prices': { type: 'string' },
    'capacity-reservations': { type: 'string' },
    ...CLUSTER_OPTIONS,
  });
  const { region, output } = values as { region: string; output: string };
  const spotPricesFile = values['spot-prices'] as string | undefined;
  const reservationsFile = values['capacity-reservations'] as string | undefined;
  if (output !== 'table' && output !== 'json') {
    throw new UsageError(`--output must be table or json (got '${output}')`, 'plan');
  }
  const choice = clusterChoice('plan', values, positionals);
  const spotPrices =
    spotPricesFile === undefined
      ? undefined
      : parseSpotPrices(await readInput(io, spotPricesFile), spotPricesFile);
  const catalog = loadCatalog('plan', region, spotPrices, spotPricesFile);
  const { file } = choice;
  const input =
    file === undefined
      ? liveInput((await loadCluster(choice, clusterIO(io))).snapshot)
      : readPlanInput(
          file === '-' ? await io.stdin() : await readInput(io, file),
          file === '-' ? '<stdin>' : file,
        );
  const reserved =
    reservationsFile === undefined
      ? undefined
      : reservationsForPlan(
          input.nodeClasses,
          parseCapacityReservations(await readInput(io, reservationsFile), reservationsFile),
          reservationsFile,
          (io.now ?? Date.now)(),
        );
  const warnings = [
    ...input.warnings,
    ...spotPriceWarnings(spotPrices, spotPricesFile, catalog),
    ...(reserved?.warnings ?? []),
  ];
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);

  const options: PlanCapacityOptions = reserved === undefined ? {} : { reservations: reserved.byNodeClass };
  const result = withLaunchPriceBands(planCapacity(input, catalog, options), input, catalog, options);
  const plan = planToJson(region, result);
  const notReserved = reserved === undefined ? reservationsNotPlannedNote(input.nodeClasses) : undefined;
  const notes = [...planNotes(plan), ...(notReserved === undefined ? [] : [notReserved])];
  if (output === 'json') {
    // stdout carries only the documented JSON; the notes go with the warnings.
    io.stdout(formatPlanJson(region, result));
    for (const note of notes) io.stderr(`note: ${note}\n`);
  } else {
    io.stdout(formatPlanTable(plan, notes));
  }
}

/**
 * The plan with each NodeClaim's options as the provisioner writes them: narrowed to its
 * NodePool's `podlift.dev/launch-price-band`, where it has one (shared/core/provisioning/price-band.ts).
 */
function withLaunchPriceBands(
  result: SchedulingResult,
  input: PlanInput,
  catalog: Catalog,
  options: PlanCapacityOptions,
): SchedulingResult {
  const banded = input.nodePools.filter((p) => p.launchPriceBand !== undefined);
  if (banded.length === 0) return result;
  const typesOf = new Map(
    [...instanceTypesByNodePool(banded, input.nodeClasses, catalog, options)].map(([pool, types]) => [
      pool,
      new Map(types.map((t) => [t.name, t])),
    ]),
  );
  return {
    ...result,
    nodeClaims: result.nodeClaims.map((claim) => {
      const pool = banded.find((p) => p.name === claim.nodePool);
      return pool ? withinPriceBand(claim, pool.launchPriceBand, typesOf.get(pool.name) ?? new Map()) : claim;
    }),
  };
}

/**
 * A live cluster's plan input: its Nodes plus the NodeClaims not yet registered (launched, or
 * still to launch: sized from their spec), which the provisioner counts as capacity too
 * (shared/core/state/cluster-snapshot.ts
 * `schedulingCapacity`; kubernetes-sigs/karpenter pkg/controllers/provisioning/provisioner.go
 * `Provisioner.Schedule` schedules onto `cluster.DeepCopyNodes()`, whose state nodes include
 * NodeClaims not yet registered).
 */
function liveInput(snapshot: ClusterSnapshot): PlanInput {
  return { ...snapshot, nodes: schedulingCapacity(snapshot) };
}
