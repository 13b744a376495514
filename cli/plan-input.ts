import { type KopsDocument, karpenterManifestsFromKops } from '../shared/core/kops/karpenter-objects';
import { isKopsManifest } from '../shared/core/kops/kops-schema';
import { parseEC2NodeClass } from '../shared/core/manifests/ec2nodeclass-schema';
import type { PodManifest } from '../shared/core/manifests/kube-objects';
import { manifestIdentity } from '../shared/core/manifests/manifest-kind';
import { nodeFromManifest } from '../shared/core/manifests/node-manifest';
import { parseNodePool } from '../shared/core/manifests/nodepool-schema';
import { PodSpecCache, podFromManifest } from '../shared/core/manifests/pod-manifest';
import type { EC2NodeClass } from '../shared/core/model/ec2nodeclass';
import { ValidationError, type ValidationLocation } from '../shared/core/model/errors';
import {
  EC2_NODE_CLASS_GROUP,
  EC2_NODE_CLASS_KIND,
  isManagedNodePool,
  isStaticNodePool,
  type NodePool,
} from '../shared/core/model/nodepool';
import type { Pod } from '../shared/core/model/pod';
import type { DaemonSet, StateNode } from '../shared/core/state/cluster-state';
import { isObject, loadKubernetesYaml, type Obj } from '../shared/yaml/kubernetes-yaml';
import { type Located, visitObjects } from './manifest-objects';
import { isWorkloadKind, namespaceOf, templatePod, workloadPods, workloadTemplate } from './plan-workloads';

/** Everything `podlift plan` reads from its input file, validated. */
export interface PlanInput {
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
  /** Pending pods: the Pods without spec.nodeName plus the pods workloads would create. */
  readonly pods: readonly Pod[];
  readonly daemonSets: readonly DaemonSet[];
  /** Existing Nodes, each with the Pods bound to it by spec.nodeName. */
  readonly nodes: readonly StateNode[];
  /** Things the user should know that do not stop the plan, without the `warning: ` prefix. */
  readonly warnings: readonly string[];
}

/** How to read the input. */
export interface PlanReadOptions {
  /**
   * The input is a cluster's state (a live read or a `kubectl get -o yaml` dump), not a plan:
   * the pods of Deployments, ReplicaSets, StatefulSets and Jobs already exist as Pods, so those
   * are not expanded, and a pod bound to a Node the input lacks (deleted between two lists) is
   * dropped with a warning instead of failing the read.
   */
  readonly clusterState?: boolean;
  /** Kinds the caller reads itself (NodeClaim, PodDisruptionBudget): handed each such object. */
  readonly otherKinds?: Readonly<Record<string, (obj: Obj, location: ValidationLocation) => void>>;
  /** Called with each NodePool and EC2NodeClass object read, before it is parsed. */
  readonly onObject?: (kind: 'NodePool' | 'EC2NodeClass', obj: Obj) => void;
}

/** The root device `plan` gives kOps' root volume mapping: only its size matters to a plan. */
const PLAN_ROOT_DEVICE = '/dev/xvda';

/** Skipped objects reported one by one; the rest are summed up in one line. */
const MAX_SKIP_WARNINGS = 20;

/**
 * Reads a kubectl-style multi-document YAML stream (`kind: List` and `*List` objects are
 * flattened, also nested) into what the planner needs. Pure: takes the text, returns data.
 *
 * - NodePool, EC2NodeClass: validated by their schemas; duplicate names are errors.
 * - Pod: pending unless spec.nodeName is set; bound pods consume their Node's capacity and must
 *   name a Node of the input. Finished pods (status.phase Succeeded or Failed) are ignored.
 * - Deployment, ReplicaSet, StatefulSet (spec.replicas, default 1) and Job (spec.parallelism,
 *   default 1, at most spec.completions; none when suspended) expand into pending pods named
 *   `<controller>-<i>`, i from 0.
 * - DaemonSet: its pod runs on every eligible node, new ones included.
 * - Node: existing capacity (labels, allocatable, taints).
 * - kOps InstanceGroup and Cluster (kops.k8s.io): each `manager: Karpenter` InstanceGroup becomes
 *   the EC2NodeClass and NodePool kOps generates (shared/core/kops, as `podlift kops` prints them).
 * - Any other kind is skipped with a warning; empty documents are ignored.
 *
 * A NodePool whose nodeClassRef names an EC2NodeClass missing from the input is kept (with a
 * warning): it can launch nothing, and the scheduler says so for the pods only it could take.
 *
 * @param source the file name used in messages (the CLI passes `<stdin>` for standard input)
 * @throws ValidationError naming the source, document index, `Kind/name`, field and value
 */
export function readPlanInput(text: string, source: string, options: PlanReadOptions = {}): PlanInput {
  const reader = new PlanInputReader(source, options);
  let index = 0;
  loadKubernetesYaml(text, source, (doc) => {
    reader.document(doc, index++);
  });
  return reader.finish();
}

/**
 * {@link readPlanInput} over objects already decoded (a live cluster's lists): locations name
 * `source` and the object, no document index.
 */
export function readPlanObjects(
  objects: Iterable<unknown>,
  source: string,
  options: PlanReadOptions = {},
): PlanInput {
  const reader = new PlanInputReader(source, options);
  for (const object of objects) reader.document(object, undefined);
  return reader.finish();
}

/** Accumulates the objects of one input stream; `finish` resolves cross-references. */
class PlanInputReader {
  private readonly nodePools = new Map<string, { pool: NodePool; location: ValidationLocation }>();
  private readonly nodeClasses = new Map<string, { nodeClass: EC2NodeClass; location: ValidationLocation }>();
  private readonly pending: Pod[] = [];
  private readonly bound = new Map<string, { pod: Pod; location: ValidationLocation }[]>();
  private readonly podLocations = new Map<string, ValidationLocation>();
  private readonly daemonSets = new Map<string, { daemonSet: DaemonSet; location: ValidationLocation }>();
  private readonly nodes = new Map<string, Located>();
  private readonly warnings: string[] = [];
  private readonly skipped = new Map<string, number>();
  private skippedCount = 0;
  private finishedPods = 0;
  private readonly podSpecs = new PodSpecCache();
  private readonly kops: KopsDocument[] = [];
  private readonly existingWorkloads = new Map<string, number>();

  constructor(
    private readonly source: string,
    private readonly options: PlanReadOptions,
  ) {}

  document(doc: unknown, documentIndex: number | undefined): void {
    if (doc === null || doc === undefined) return;
    visitObjects(
      doc,
      documentIndex === undefined ? { source: this.source } : { source: this.source, documentIndex },
      (o) => this.kind(o),
    );
  }

  private kind(o: Located): void {
    const other = this.options.otherKinds?.[o.kind];
    if (other) {
      other(o.obj, o.location);
      return;
    }
    if (isKopsManifest(o.obj)) {
      // Converted in finish(): the Cluster the InstanceGroups need may come later in the stream.
      this.kops.push({
        manifest: o.obj,
        location: { source: o.location.source, documentIndex: o.location.documentIndex },
      });
      return;
    }
    switch (o.kind) {
      case 'NodePool':
        this.nodePool(o);
        break;
      case 'EC2NodeClass':
        this.nodeClass(o);
        break;
      case 'Pod':
        this.pod(o);
        break;
      case 'DaemonSet':
        this.daemonSet(o);
        break;
      case 'Node':
        this.node(o);
        break;
      default:
        if (isWorkloadKind(o.kind) && this.options.clusterState) {
          this.existingWorkloads.set(o.kind, (this.existingWorkloads.get(o.kind) ?? 0) + 1);
        } else if (isWorkloadKind(o.kind)) this.workload(o);
        else this.skip(o);
    }
  }

  private nodePool(o: Located): void {
    this.options.onObject?.('NodePool', o.obj);
    const pool = parseNodePool(o.obj, o.location);
    const first = this.nodePools.get(pool.name);
    if (first) throw duplicate('NodePool', pool.name, first.location);
    this.nodePools.set(pool.name, { pool, location: o.location });
  }

  private nodeClass(o: Located): void {
    this.options.onObject?.('EC2NodeClass', o.obj);
    const nodeClass = parseEC2NodeClass(o.obj, o.location);
    const first = this.nodeClasses.get(nodeClass.name);
    if (first) throw duplicate('EC2NodeClass', nodeClass.name, first.location);
    this.nodeClasses.set(nodeClass.name, { nodeClass, location: o.location });
    for (const w of nodeClass.warnings ?? []) {
      this.warnings.push(`${where(o.location)}: EC2NodeClass/${nodeClass.name}: ${w}`);
    }
  }

  private pod(o: Located): void {
    const phase = isObject(o.obj.status) ? o.obj.status.phase : undefined;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // A finished pod holds no resources and will not be scheduled again.
      this.finishedPods++;
      return;
    }
    const pod = podFromManifest(o.obj as PodManifest, o.location, this.podSpecs);
    this.addPod(pod, o.location);
  }

  private addPod(pod: Pod, location: ValidationLocation): void {
    const key = `${pod.namespace}/${pod.name}`;
    const first = this.podLocations.get(key);
    if (first) throw duplicate('Pod', key, first);
    this.podLocations.set(key, location);
    if (pod.nodeName === undefined) {
      this.pending.push(pod);
      return;
    }
    let onNode = this.bound.get(pod.nodeName);
    if (!onNode) {
      onNode = [];
      this.bound.set(pod.nodeName, onNode);
    }
    onNode.push({ pod, location });
  }

  private workload(o: Located): void {
    for (const pod of workloadPods(o.kind, o.name, o.obj, o.location)) this.addPod(pod, o.location);
  }

  private daemonSet(o: Located): void {
    const { name, obj, location } = o;
    const template = workloadTemplate(name, obj, location);
    const namespace = namespaceOf(obj);
    const key = `${namespace}/${name}`;
    const first = this.daemonSets.get(key);
    if (first) throw duplicate('DaemonSet', key, first.location);
    const pod = templatePod(template, namespace, name, 'DaemonSet', location);
    this.daemonSets.set(key, { daemonSet: { namespace, name, pod }, location });
  }

  private node(o: Located): void {
    if (o.name === '') {
      throw new ValidationError(
        [{ field: 'metadata.name', value: o.name, message: 'is required' }],
        o.location,
      );
    }
    const first = this.nodes.get(o.name);
    if (first) throw duplicate('Node', o.name, first.location);
    // Built in finish(): the pods bound to it may come later in the stream.
    this.nodes.set(o.name, o);
  }

  /**
   * kOps InstanceGroups with `manager: Karpenter` become the EC2NodeClass and NodePool kOps
   * generates (`podlift kops`), checked as if they were written out. Planning needs the root
   * volume's size, not its device, so a stand-in device name keeps the mapping that sizes it.
   */
  private kopsInstanceGroups(): void {
    if (this.kops.length === 0) return;
    const { manifests, warnings } = karpenterManifestsFromKops(this.kops, {
      rootDeviceName: PLAN_ROOT_DEVICE,
    });
    this.warnings.push(...warnings);
    const igs = new Map(this.kops.map((d) => [manifestIdentity(d.manifest).name, d.location]));
    for (const obj of manifests) {
      const { kind = '', name = '' } = manifestIdentity(obj);
      const location = { ...igs.get(name), object: `${kind}/${name} (from InstanceGroup/${name})` };
      if (kind === 'NodePool') this.nodePool({ obj, kind, name, location });
      else this.nodeClass({ obj, kind, name, location });
    }
  }

  private skip(o: Located): void {
    this.skippedCount++;
    if (this.skippedCount <= MAX_SKIP_WARNINGS) {
      this.warnings.push(
        `${where(o.location)}: skipping ${o.location.object}: podlift plan does not use this kind`,
      );
    } else {
      this.skipped.set(o.kind, (this.skipped.get(o.kind) ?? 0) + 1);
    }
  }

  finish(): PlanInput {
    this.kopsInstanceGroups();
    const nodes: StateNode[] = [];
    for (const [name, o] of this.nodes) {
      const pods = (this.bound.get(name) ?? []).map((b) => b.pod);
      try {
        nodes.push(nodeFromManifest(o.obj, o.location, pods));
      } catch (e) {
        throw e instanceof ValidationError ? e.at(o.location) : e;
      }
    }
    for (const [nodeName, pods] of this.bound) {
      if (this.nodes.has(nodeName)) continue;
      const { pod, location } = pods[0];
      if (this.options.clusterState) {
        this.warnings.push(
          `${where(location)}: ignoring ${pods.length} pod(s) bound to Node ${nodeName}, which is not in the input (deleted while it was read?), e.g. ${location.object}`,
        );
        continue;
      }
      throw new ValidationError(
        [
          {
            field: 'spec.nodeName',
            value: pod.nodeName,
            message:
              'names no Node in the input: add that Node, or remove spec.nodeName to plan the pod as pending',
          },
        ],
        location,
      );
    }
    const nodeClassNames = new Set(this.nodeClasses.keys());
    for (const { pool, location } of this.nodePools.values()) {
      const ref = pool.template.nodeClassRef.name;
      if (!isManagedNodePool(pool)) {
        const { group, kind } = pool.template.nodeClassRef;
        this.warnings.push(
          `${where(location)}: ${location.object}: spec.template.spec.nodeClassRef is ${group}/${kind}, not ${EC2_NODE_CLASS_GROUP}/${EC2_NODE_CLASS_KIND}: another controller's NodePool (e.g. EKS Auto Mode), skipped`,
        );
        continue;
      }
      if (isStaticNodePool(pool)) {
        this.warnings.push(
          `${where(location)}: ${location.object}: spec.replicas is ${pool.replicas}: a static NodePool keeps that many nodes and takes no pending pods`,
        );
      }
      if (!nodeClassNames.has(ref)) {
        this.warnings.push(
          `${where(location)}: ${location.object}: spec.template.spec.nodeClassRef names EC2NodeClass "${ref}", which is not in the input; this NodePool can launch no nodes`,
        );
      }
    }
    if (this.skipped.size > 0) {
      const kinds = [...this.skipped].map(([kind, n]) => `${kind}: ${n}`).join(', ');
      const more = this.skippedCount - MAX_SKIP_WARNINGS;
      this.warnings.push(
        `${this.source}: skipping ${more} more objects podlift plan does not use (${kinds})`,
      );
    }
    if (this.existingWorkloads.size > 0) {
      const kinds = [...this.existingWorkloads].map(([kind, n]) => `${kind}: ${n}`).join(', ');
      this.warnings.push(
        `${this.source}: not expanding workloads of a cluster's state (${kinds}): their pods are read as Pods`,
      );
    }
    if (this.finishedPods > 0) {
      this.warnings.push(
        `${this.source}: ignoring ${this.finishedPods} finished pod(s) (status.phase Succeeded or Failed)`,
      );
    }
    return {
      nodePools: [...this.nodePools.values()].map((p) => p.pool),
      nodeClasses: [...this.nodeClasses.values()].map((c) => c.nodeClass),
      pods: this.pending,
      daemonSets: [...this.daemonSets.values()].map((d) => d.daemonSet),
      nodes,
      warnings: this.warnings,
    };
  }
}

function duplicate(kind: string, name: string, first: ValidationLocation): ValidationError {
  return new ValidationError([
    {
      field: 'metadata.name',
      value: name,
      message: `duplicate ${kind}: already defined at ${where(first)}${first.object ? ` (${first.object})` : ''}`,
    },
  ]);
}

/** `file document N`, as warnings print a location. */
function where(location: ValidationLocation): string {
  return `${location.source}${location.documentIndex === undefined ? '' : ` document ${location.documentIndex}`}`;
}
