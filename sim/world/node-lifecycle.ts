import type { FakeEc2 } from '../fakes/aws/ec2';
import { formatKubeTime, type KubeObject } from '../fakes/kube';
import type { KubeStore } from '../fakes/kube/store';

/**
 * kube-controller-manager's and cloud-controller-manager's part in a node's end, as unkind as
 * Kubernetes is to a node whose kubelet is gone:
 * - the node lifecycle controller (kubernetes pkg/controller/nodelifecycle
 *   node_lifecycle_controller.go `monitorNodeHealth`, `tryUpdateNodeHealth`) sets every
 *   condition to Unknown ("Kubelet stopped posting node status.") once no heartbeat came for the
 *   node-monitor grace period, marks the node's pods not Ready (`MarkPodsNotReady`), and taints
 *   the node `node.kubernetes.io/unreachable` NoSchedule and NoExecute
 *   (`doNoScheduleTaintingPass`, `doNoExecuteTaintingPass`);
 * - the taint eviction controller (pkg/controller/tainteviction) deletes, gracefully, every pod
 *   that does not tolerate the NoExecute taint once its tolerationSeconds ran out — 300 s for pods
 *   that name none, which the DefaultTolerationSeconds admission plugin gives every pod; DaemonSet
 *   pods tolerate it for ever (the DaemonSet controller adds the toleration). Nothing confirms
 *   those deletions: the pods stay Terminating;
 * - the cloud node lifecycle controller (k8s.io/cloud-provider controllers/nodelifecycle
 *   `MonitorNodes`, every 5 s) deletes a not-Ready Node whose instance no longer exists — for AWS,
 *   one that is terminated (cloud-provider-aws `InstanceExistsByProviderID`); a finalizer on the
 *   Node (podlift's) keeps it until removed;
 * - the pod garbage collector (pkg/controller/podgc `gcOrphaned`) force-deletes (grace 0) the
 *   pods bound to a Node that no longer exists, after a 40 s quarantine. While the Node exists,
 *   even with a deletionTimestamp, its pods stay.
 */
export class NodeLifecycleStandIn {
  private readonly orphanedSince = new Map<string, number>();
  private readonly unknownSince = new Map<string, number>();

  constructor(
    private readonly store: KubeStore,
    private readonly ec2: FakeEc2,
  ) {}

  /**
   * Acts on every node at `now`. `kubeletDeadSince(node)` says since when a node's kubelet posts
   * no status (undefined while it does). Returns what happened, for the log.
   */
  step(now: number, kubeletDeadSince: (node: string) => number | undefined): NodeLifecycleEvent[] {
    const events: NodeLifecycleEvent[] = [];
    const nodes = this.store.list('nodes').items;
    const pods = this.store.list('pods').items;
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      const dead = kubeletDeadSince(name);
      if (dead !== undefined && now >= dead + NODE_MONITOR_GRACE_MS && !this.unknownSince.has(name)) {
        this.markUnknown(node, pods, now);
        this.unknownSince.set(name, now);
        events.push({ kind: 'node-unreachable', node: name });
      }
      const since = this.unknownSince.get(name);
      if (since !== undefined) {
        const evicted = this.evictIntolerant(name, pods, since, now);
        if (evicted > 0) events.push({ kind: 'pods-evicted-unreachable', node: name, count: evicted });
      }
      if (!isReady(node) && !node.metadata.deletionTimestamp && this.instanceGone(node)) {
        this.store.delete('nodes', name);
        events.push({ kind: 'node-deleted', node: name });
      }
    }
    const existing = new Set(nodes.map((n) => n.metadata.name));
    for (const name of this.unknownSince.keys()) if (!existing.has(name)) this.unknownSince.delete(name);
    events.push(...this.collectOrphans(pods, existing, now));
    return events;
  }

  /** The next instant a deadline of this controller falls due after `now` (Infinity when none). */
  nextDue(now: number, kubeletDeadSince: (node: string) => number | undefined): number {
    let next = Number.POSITIVE_INFINITY;
    const consider = (at: number) => {
      if (at > now && at < next) next = at;
    };
    for (const node of this.store.list('nodes').items) {
      const name = node.metadata.name ?? '';
      const dead = kubeletDeadSince(name);
      if (dead !== undefined && !this.unknownSince.has(name)) consider(dead + NODE_MONITOR_GRACE_MS);
    }
    const pods = this.store.list('pods').items;
    for (const [name, since] of this.unknownSince)
      for (const pod of podsOn(pods, name))
        if (!pod.metadata.deletionTimestamp) consider(since + tolerationSeconds(pod) * 1000);
    for (const since of this.orphanedSince.values()) consider(since + PODGC_QUARANTINE_MS);
    return next;
  }

  private markUnknown(node: KubeObject, pods: readonly KubeObject[], now: number): void {
    const name = node.metadata.name ?? '';
    const status = (node.status ?? {}) as Json;
    const stamp = formatKubeTime(new Date(now));
    const conditions = ((status.conditions ?? []) as Json[]).map((c) => ({
      ...c,
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastTransitionTime: stamp,
    }));
    const updated = this.store.updateStatus('nodes', { ...node, status: { ...status, conditions } });
    const spec = (updated.spec ?? {}) as Json;
    const taints = ((spec.taints ?? []) as Json[]).filter((t) => t.key !== UNREACHABLE);
    taints.push(
      { key: UNREACHABLE, effect: 'NoSchedule' },
      { key: UNREACHABLE, effect: 'NoExecute', timeAdded: stamp },
    );
    this.store.update('nodes', { ...updated, spec: { ...spec, taints } });
    for (const pod of podsOn(pods, name)) {
      const podStatus = (pod.status ?? {}) as Json;
      const podConditions = (podStatus.conditions ?? []) as Json[];
      if (!podConditions.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      const current = this.store.find('pods', pod.metadata.name ?? '', pod.metadata.namespace);
      if (!current) continue;
      this.store.updateStatus('pods', {
        ...current,
        status: {
          ...podStatus,
          conditions: podConditions.map((c) =>
            c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: stamp } : c,
          ),
        },
      });
    }
  }

  private evictIntolerant(node: string, pods: readonly KubeObject[], since: number, now: number): number {
    let evicted = 0;
    for (const pod of podsOn(pods, node)) {
      if (pod.metadata.deletionTimestamp || now < since + tolerationSeconds(pod) * 1000) continue;
      // Deleted with no grace given: the pod's own; the kubelet that would confirm is gone.
      this.store.delete('pods', pod.metadata.name ?? '', { namespace: pod.metadata.namespace });
      evicted++;
    }
    return evicted;
  }

  private instanceGone(node: KubeObject): boolean {
    const providerID = String(((node.spec ?? {}) as Json).providerID ?? '');
    const instanceId = providerID.split('/').pop();
    if (!providerID.startsWith('aws://') || !instanceId) return false;
    const instance = this.ec2.instance(instanceId);
    return instance === undefined || instance.State?.Name === 'terminated';
  }

  private collectOrphans(pods: readonly KubeObject[], nodes: ReadonlySet<unknown>, now: number) {
    const events: NodeLifecycleEvent[] = [];
    const seen = new Set<string>();
    for (const pod of pods) {
      const nodeName = ((pod.spec ?? {}) as Json).nodeName as string | undefined;
      if (!nodeName || nodes.has(nodeName)) continue;
      const uid = pod.metadata.uid ?? '';
      seen.add(uid);
      const since = this.orphanedSince.get(uid) ?? now;
      this.orphanedSince.set(uid, since);
      if (now < since + PODGC_QUARANTINE_MS) continue;
      this.store.delete('pods', pod.metadata.name ?? '', {
        namespace: pod.metadata.namespace,
        gracePeriodSeconds: 0,
      });
      events.push({
        kind: 'pod-collected',
        node: nodeName,
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
      });
    }
    for (const uid of [...this.orphanedSince.keys()]) if (!seen.has(uid)) this.orphanedSince.delete(uid);
    return events;
  }
}

/** Something {@link NodeLifecycleStandIn} did. */
export type NodeLifecycleEvent =
  | { readonly kind: 'node-unreachable'; readonly node: string }
  | { readonly kind: 'pods-evicted-unreachable'; readonly node: string; readonly count: number }
  | { readonly kind: 'node-deleted'; readonly node: string }
  | { readonly kind: 'pod-collected'; readonly node: string; readonly pod: string };

/**
 * kube-controller-manager's `--node-monitor-grace-period`: 50 s since Kubernetes 1.32 (40 s
 * before), the version the fake API server claims by default.
 */
export const NODE_MONITOR_GRACE_MS = 50_000;
/** podgc's `quarantineTime`: how long a pod's Node must stay missing before the pod is collected. */
export const PODGC_QUARANTINE_MS = 40_000;
/** The DefaultTolerationSeconds admission plugin's `default-unreachable-toleration-seconds`. */
export const DEFAULT_UNREACHABLE_TOLERATION_SECONDS = 300;

const UNREACHABLE = 'node.kubernetes.io/unreachable';

// biome-ignore lint/suspicious/noExplicitAny: the stand-in reads and writes the API server's untyped JSON
type Json = Record<string, any>;

function isReady(node: KubeObject): boolean {
  return (((node.status ?? {}) as Json).conditions ?? []).some(
    (c: Json) => c.type === 'Ready' && c.status === 'True',
  );
}

function podsOn(pods: readonly KubeObject[], node: string): KubeObject[] {
  return pods.filter((p) => ((p.spec ?? {}) as Json).nodeName === node);
}

/** How long `pod` stays on an unreachable node: its own toleration's seconds, for ever, or the admission default. */
export function tolerationSeconds(pod: KubeObject): number {
  const owners = (pod.metadata.ownerReferences ?? []) as Json[];
  if (owners.some((o) => o.kind === 'DaemonSet')) return Number.POSITIVE_INFINITY;
  const tolerations = (((pod.spec ?? {}) as Json).tolerations ?? []) as Json[];
  const match = tolerations.find(
    (t) =>
      (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') &&
      (t.key === UNREACHABLE || (t.operator === 'Exists' && (t.key === undefined || t.key === ''))),
  );
  if (!match) return DEFAULT_UNREACHABLE_TOLERATION_SECONDS;
  return typeof match.tolerationSeconds === 'number'
    ? Math.max(0, match.tolerationSeconds)
    : Number.POSITIVE_INFINITY;
}
