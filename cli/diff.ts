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
import type { ClusterSourceChoice } from './cluster-source';
import { type DiffJson, diffToJson, formatDiffTable } from './diff-output';
import type { RolloutInput, RolloutPlayer, RolloutPod, RolloutReport } from './diff-rollout';

/** What `podlift diff` needs from the CLI around it (run.ts owns flags, files and errors). */
export interface DiffCommandTools {
  /** Parses the command's flags (node:util parseArgs, strict), usage errors thrown as such. */
  readonly parseArgs: (
    args: string[],
    options: Readonly<Record<string, { type: 'string' | 'boolean'; short?: string; default?: string }>>,
  ) => { values: Record<string, string | boolean | undefined>; positionals: string[] };
  readonly usageError: (message: string) => Error;
  /** Reads a file; errors name it. */
  readonly readInput: (path: string) => Promise<string>;
  /** The cluster chosen by the positional dump or --kubeconfig/--context. */
  readonly clusterChoice: (
    values: Record<string, string | boolean | undefined>,
    positionals: readonly string[],
  ) => ClusterSourceChoice;
  readonly loadCluster: (choice: ClusterSourceChoice) => Promise<ClusterSnapshot>;
  /** The bundled catalog of `region`, with spot prices from `spotPricesFile` when given. */
  readonly loadCatalog: (region: string, spotPricesFile: string | undefined) => Promise<Catalog>;
  /** Plays the rollout; undefined where no simulator is wired in. */
  readonly playRollout?: RolloutPlayer;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The flags of `podlift diff`, beside the cluster's (--kubeconfig, --context). */
export const DIFF_OPTIONS = {
  region: { type: 'string', default: 'us-east-1' },
  output: { type: 'string', short: 'o', default: 'table' },
  'spot-prices': { type: 'string' },
  'no-rollout': { type: 'boolean' },
  'max-duration': { type: 'string', default: '6h' },
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
export async function diffCommand(args: string[], tools: DiffCommandTools): Promise<void> {
  const { values, positionals } = tools.parseArgs(args, DIFF_OPTIONS);
  const output = String(values.output);
  if (output !== 'table' && output !== 'json')
    throw tools.usageError(`--output must be table or json (got '${output}')`);
  const maxDuration = parseMaxDuration(String(values['max-duration']), tools);
  const [changedFile, ...rest] = positionals;
  if (changedFile === undefined) throw tools.usageError('missing the changed NodePool or EC2NodeClass file');
  if (changedFile === '-') throw tools.usageError("the changed file cannot be '-'; the cluster dump can");
  const choice = tools.clusterChoice(values, rest);
  const changed = readChangedObjects(await tools.readInput(changedFile), changedFile);
  const catalog = await tools.loadCatalog(String(values.region), values['spot-prices'] as string | undefined);
  const cluster = await tools.loadCluster(choice);
  for (const warning of cluster.warnings) tools.stderr(`warning: ${warning}\n`);

  const state = previewState(cluster, catalog);
  const rows = previewDrift(state, changed.change);
  const drifted = driftedByChange(rows);
  const replacement = planDriftReplacement(state, changed.change, rows, drifted);
  let rollout: RolloutReport | undefined;
  const notes = heldBack(cluster, drifted, Date.now());
  if (drifted.length > 0 && values['no-rollout'] !== true) {
    if (tools.playRollout)
      rollout = await tools.playRollout(rolloutInput(cluster, changed, rows, drifted, maxDuration));
    else notes.push('this podlift has no simulator wired in: the rollout was not played');
  }
  const json: DiffJson = diffToJson({
    region: String(values.region),
    source: cluster.source,
    changed: changed.objects,
    rows,
    drifted,
    replacement,
    ...(rollout ? { rollout } : {}),
    notes,
  });
  tools.stdout(output === 'json' ? `${JSON.stringify(json, null, 2)}\n` : formatDiffTable(json));
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

function parseMaxDuration(text: string, tools: DiffCommandTools): number {
  try {
    const ms = durationMs(text);
    if (ms !== undefined && ms > 0) return ms;
  } catch {
    // reported below
  }
  throw tools.usageError(`--max-duration must be a duration such as 90m or 6h (got '${text}')`);
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
