import type { Catalog } from '../shared/core/catalog/instance-type';
import {
  type ClaimDrift,
  type DriftChange,
  type DriftPreviewState,
  driftedByChange,
  planDriftReplacement,
  previewDrift,
} from '../shared/core/disruption/drift-preview';
import { parseEC2NodeClass } from '../shared/core/manifests/ec2nodeclass-schema';
import { nodeClassStatusFromObject } from '../shared/core/manifests/ec2nodeclass-status-object';
import { parseNodePool } from '../shared/core/manifests/nodepool-schema';
import { doNotDisruptActive } from '../shared/core/model/do-not-disrupt';
import { durationMs } from '../shared/core/model/duration';
import type { EC2NodeClass } from '../shared/core/model/ec2nodeclass';
import type { EC2NodeClassStatus } from '../shared/core/model/ec2nodeclass-status';
import { ValidationError } from '../shared/core/model/errors';
import type { NodePool } from '../shared/core/model/nodepool';
import type { Pod } from '../shared/core/model/pod';
import { isReschedulable } from '../shared/core/provisioning/pods-to-provision';
import { quantityStrings } from '../shared/kube/nodeclaim-manifest';
import { isObject, loadKubernetesYaml, type Obj } from '../shared/yaml/kubernetes-yaml';
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
import { type DiffJson, diffToJson, formatDiffTable } from './diff-output';
import type { RolloutInput, RolloutPod, RolloutReport } from './diff-rollout';
import { parseSpotPrices } from './spot-prices';

/** `podlift diff --help`. */
export const DIFF_HELP = `Usage: podlift diff <changed.yaml> [<cluster-dump.yaml | ->] [options]

Says what applying a changed NodePool or EC2NodeClass would do to a cluster, read-only, before
you apply it: which NodeClaims would drift and why (the disruption loop's own drift rules:
the NodePool and EC2NodeClass hashes, the NodePool's requirements, the AMI), what the planner
would put in their place and the $/hour before and after; then it plays the rollout in the
simulator, from the cluster's current state, with podlift's own handlers under the NodePools'
disruption budgets, the PodDisruptionBudgets and do-not-disrupt pods: how many nodes at a time,
how long it takes, which pods move, what holds it back.

<changed.yaml> holds the edited NodePool and EC2NodeClass objects (YAML, several documents or a
List). With a dump file ('-' reads standard input; kubectl get nodepools,ec2nodeclasses,
nodeclaims,nodes,pods,daemonsets,poddisruptionbudgets -A -o yaml) it reads that; with none, the
live cluster of the current kubeconfig context.

Options:
      --kubeconfig <file>     Live cluster: this kubeconfig (default: KUBECONFIG, ~/.kube/config)
      --context <name>        Live cluster: this context (default: the current context)
      --region <region>       AWS region of instance types and prices (default us-east-1)
  -o, --output <format>       table or json (default table)
      --spot-prices <file>    JSON of spot prices in USD/hour, replacing the estimates
      --no-rollout            Do not play the rollout in the simulator
      --max-duration <dur>    Stop the simulated rollout after this long (default 6h)
  -h, --help                  Show this help

EC2 is not asked: drift by subnet and security group is not reported, and a changed
EC2NodeClass whose selector terms select other AMIs says so as unknown.

Exit codes: 0 reported (whatever drifts), 2 invalid input or usage, 1 other failure.

Examples:
  podlift diff examples/diff/web-nodepool.yaml examples/diff/cluster.yaml
  podlift diff nodepool.yaml --context prod -o json
`;

/** The flags of `podlift diff`. */
const DIFF_OPTIONS = {
  region: { type: 'string', default: 'us-east-1' },
  output: { type: 'string', short: 'o', default: 'table' },
  'spot-prices': { type: 'string' },
  'no-rollout': { type: 'boolean' },
  'max-duration': { type: 'string', default: '6h' },
  ...CLUSTER_OPTIONS,
} as const;

/** The changed objects of a diff's file, typed and as written. */
export interface ChangedObjects {
  readonly change: DriftChange;
  readonly objects: readonly Obj[];
}

/**
 * Reads the changed NodePools and EC2NodeClasses of `text` (multi-document YAML, `kind: List`
 * flattened), each validated by its schema. Any other kind is an error naming it: a diff of a
 * Deployment is not what this command answers.
 */
export function readChangedObjects(text: string, source: string): ChangedObjects {
  const nodePools: NodePool[] = [];
  const nodeClasses: EC2NodeClass[] = [];
  const objects: Obj[] = [];
  const take = (doc: unknown, documentIndex: number) => {
    if (!isObject(doc)) return;
    const kind = String(doc.kind ?? '');
    if (kind.endsWith('List') && Array.isArray(doc.items)) {
      for (const item of doc.items) take(item, documentIndex);
      return;
    }
    const location = { source, documentIndex };
    if (kind === 'NodePool') nodePools.push(parseNodePool(doc, location));
    else if (kind === 'EC2NodeClass') nodeClasses.push(parseEC2NodeClass(doc, location));
    else
      throw new ValidationError(
        [{ field: 'kind', value: kind, message: 'podlift diff takes NodePool and EC2NodeClass objects' }],
        location,
      );
    objects.push(doc);
  };
  loadKubernetesYaml(text, source, take);
  if (objects.length === 0)
    throw new ValidationError(
      [{ field: '(file)', value: '', message: 'holds no NodePool or EC2NodeClass' }],
      { source },
    );
  return { change: { nodePools, nodeClasses }, objects };
}

/** Runs `podlift diff`. */
export async function diffCommand(args: string[], io: CliIO): Promise<void> {
  const usage = (message: string) => new UsageError(message, 'diff');
  const { values, positionals } = parseCommandArgs('diff', args, DIFF_OPTIONS);
  const output = String(values.output);
  if (output !== 'table' && output !== 'json')
    throw usage(`--output must be table or json (got '${output}')`);
  const maxDuration = parseMaxDuration(String(values['max-duration']));
  const [changedFile, ...rest] = positionals;
  if (changedFile === undefined) throw usage('missing the changed NodePool or EC2NodeClass file');
  if (changedFile === '-') throw usage("the changed file cannot be '-'; the cluster dump can");
  const choice = clusterChoice('diff', values, rest);
  const changed = readChangedObjects(await readInput(io, changedFile), changedFile);
  const region = String(values.region);
  const spotPricesFile = values['spot-prices'] as string | undefined;
  const spotPrices =
    spotPricesFile === undefined
      ? undefined
      : parseSpotPrices(await readInput(io, spotPricesFile), spotPricesFile);
  const catalog = loadCatalog('diff', region, spotPrices, spotPricesFile);
  const cluster = (await loadCluster(choice, clusterIO(io))).snapshot;
  for (const warning of [...cluster.warnings, ...spotPriceWarnings(spotPrices, spotPricesFile, catalog)])
    io.stderr(`warning: ${warning}\n`);

  const state = previewState(cluster, catalog);
  const rows = previewDrift(state, changed.change);
  const drifted = driftedByChange(rows);
  const replacement = planDriftReplacement(state, changed.change, rows, drifted);
  let rollout: RolloutReport | undefined;
  const notes = heldBack(cluster, drifted, (io.now ?? Date.now)());
  if (drifted.length > 0 && values['no-rollout'] !== true) {
    if (io.playRollout)
      rollout = await io.playRollout(rolloutInput(cluster, changed, rows, drifted, maxDuration));
    else notes.push('this podlift has no simulator wired in: the rollout was not played');
  }
  const json: DiffJson = diffToJson({
    region,
    source: cluster.source,
    changed: changed.objects,
    rows,
    drifted,
    replacement,
    ...(rollout ? { rollout } : {}),
    notes,
  });
  io.stdout(output === 'json' ? `${JSON.stringify(json, null, 2)}\n` : formatDiffTable(json));
}

/**
 * Drifted nodes drift cannot take while a pod on them has karpenter.sh/do-not-disrupt in force
 * (kubernetes-sigs/karpenter pkg/utils/pod/scheduling.go `IsDisruptable`; only a NodeClaim with a
 * terminationGracePeriod lets drift past it), in words.
 */
function heldBack(cluster: ClusterSnapshot, drifted: readonly ClaimDrift[], now: number): string[] {
  const nodes = new Map(cluster.nodes.map((n) => [n.name, n]));
  const claims = new Map(cluster.nodeClaims.map((c) => [c.name, c]));
  return drifted.flatMap((r) => {
    const pod = nodes.get(r.node ?? '')?.pods.find((p) => doNotDisruptActive(p, now));
    if (!pod || claims.get(r.nodeClaim)?.spec.terminationGracePeriod) return [];
    return [
      `${r.nodeClaim}: pod ${pod.namespace}/${pod.name} has karpenter.sh/do-not-disrupt; drift does not take the node while it runs there`,
    ];
  });
}

function parseMaxDuration(text: string): number {
  try {
    const ms = durationMs(text);
    if (ms !== undefined && ms > 0) return ms;
  } catch {
    // reported below
  }
  throw new UsageError(`--max-duration must be a duration such as 90m or 6h (got '${text}')`, 'diff');
}

/** The cluster as the drift preview reads it: EC2NodeClass statuses taken from the objects. */
function previewState(cluster: ClusterSnapshot, catalog: Catalog): DriftPreviewState {
  const nodeClassStatus = new Map<string, EC2NodeClassStatus>();
  for (const c of cluster.nodeClasses) {
    const status = nodeClassStatusFromObject(c.status);
    if (status) nodeClassStatus.set(c.name, status);
  }
  return {
    nodePools: cluster.nodePools,
    nodeClasses: cluster.nodeClasses,
    nodeClassStatus,
    // By name, so a dump and a live read (listed by name) give the same report.
    nodeClaims: [...cluster.nodeClaims].sort((a, b) => a.name.localeCompare(b.name)),
    nodes: [...cluster.nodes].sort((a, b) => a.name.localeCompare(b.name)),
    daemonSets: cluster.daemonSets,
    catalog,
  };
}

/** What the simulator needs to start from the cluster as it is. */
function rolloutInput(
  cluster: ClusterSnapshot,
  changed: ChangedObjects,
  rows: readonly ClaimDrift[],
  drifted: readonly ClaimDrift[],
  maxDurationMs: number,
): RolloutInput {
  const drifts = new Set(drifted.map((r) => r.nodeClaim));
  const nodes = new Map(cluster.nodes.map((n) => [n.name, n]));
  return {
    nodePools: cluster.manifests.nodePools,
    nodeClasses: cluster.manifests.nodeClasses,
    changed: changed.objects,
    nodes: rows.flatMap((r) =>
      r.instanceType && r.zone && r.capacityType
        ? [
            {
              nodeClaim: r.nodeClaim,
              ...(r.node ? { node: r.node } : {}),
              nodePool: r.nodePool,
              instanceType: r.instanceType,
              zone: r.zone,
              capacityType: r.capacityType,
              drifts: drifts.has(r.nodeClaim),
              pods: (nodes.get(r.node ?? '')?.pods ?? []).filter(isReschedulable).map(rolloutPod),
            },
          ]
        : [],
    ),
    budgets: cluster.podDisruptionBudgets.map((b) => ({
      namespace: b.namespace,
      name: b.name,
      matchLabels: b.selector?.matchLabels ?? {},
      ...(b.minAvailable !== undefined ? { minAvailable: b.minAvailable } : {}),
      ...(b.maxUnavailable !== undefined ? { maxUnavailable: b.maxUnavailable } : {}),
    })),
    maxDurationMs,
  };
}

/**
 * A pod as the rollout seeds it. Its controller's name is read from its own, as controllers
 * generate them: `<replicaset>-<5 chars>` (ReplicaSet, Job), `<statefulset>-<ordinal>`.
 */
function rolloutPod(pod: Pod): RolloutPod {
  const owner =
    pod.ownerKind === undefined
      ? undefined
      : {
          kind: pod.ownerKind,
          name: pod.name.replace(pod.ownerKind === 'StatefulSet' ? /-\d+$/ : /-[^-]+$/, ''),
        };
  return {
    namespace: pod.namespace,
    name: pod.name,
    ...(owner ? { owner } : {}),
    requests: quantityStrings(pod.requests),
    labels: pod.labels,
    annotations: pod.annotations ?? {},
    nodeSelector: pod.nodeSelector,
    tolerations: pod.tolerations.map((t) => ({ ...t })),
  };
}
