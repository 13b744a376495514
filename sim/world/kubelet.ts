import type { Instance } from '@aws-sdk/client-ec2';
import type { Clock } from '../../shared/core/ports/time';
import type { FakeEc2 } from '../fakes/aws/ec2';
import { formatKubeTime, type KubeObject } from '../fakes/kube';
import type { KubeStore } from '../fakes/kube/store';
import type { KubeletEvent } from './kubelet-events';
import { readNodeBootstrap, UnbootableUserDataError } from './node-bootstrap';
import { NodeLifecycleStandIn } from './node-lifecycle';
import { isWindowsPlatform, NOT_READY_TAINT, registeredNode } from './node-registration';

export { type KubeletEvent, kubeletEventMessage } from './kubelet-events';

/** How long a node takes to come up, in virtual milliseconds. */
export interface KubeletTimings {
  /** From the instance running to its Node registering (boot, nodeadm, kubelet start). @default 20 s */
  readonly registerAfterMs?: number;
  /**
   * The same for a Windows instance, whose first boot (sysprep, EC2Launch, Start-EKSBootstrap)
   * takes minutes rather than seconds. @default 3 min
   */
  readonly windowsRegisterAfterMs?: number;
  /** From registration to Ready (CNI up). @default 8 s */
  readonly readyAfterMs?: number;
  /** From Ready to the startup taints lifted by the agents that own them. @default 4 s */
  readonly startupTaintsAfterMs?: number;
  /** From a pod bound to it running Ready. @default 3 s */
  readonly podStartMs?: number;
  /**
   * From a pod's deletion to its containers stopped and the kubelet's confirming delete (never
   * later than the pod's grace period). @default 2 s
   */
  readonly podStopMs?: number;
}

/** Which instances boot but never register a Node: by instance type or by EC2NodeClass. */
export interface NeverRegisters {
  readonly instanceType?: string;
  readonly nodeClass?: string;
}

interface TrackedInstance {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly nodeName: string;
  readonly runningSince: number;
  /** How long it boots before its Node registers (longer on Windows). */
  readonly registerAfterMs: number;
  phase: 'booting' | 'registered' | 'ready' | 'gone';
  since: number;
  startupLifted: boolean;
  /** Since when its kubelet posts nothing and confirms nothing (died, or the instance went). */
  deadSince?: number;
  /** Why it never registers (its kubelet never starts). */
  neverRegisters?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the stand-in reads and writes the API server's untyped JSON
type Json = Record<string, any>;

/**
 * A stand-in for the kubelets of the instances EC2 runs, plus the control-plane parts that act on
 * their behalf: each running instance boots after a modelled delay and registers a Node with the
 * labels and taints its user data asks for (read by {@link readNodeBootstrap}, not taken from
 * the NodeClaim), the well-known labels kubelet and the cloud provider add, and allocatable
 * computed as the EKS AMI does; the node lifecycle controller's not-ready taint comes off when
 * it turns Ready; the agents owning the NodeClaim's startup taints lift them; bound pods start;
 * a pod being deleted has its containers stopped and its deletion confirmed (a delete with grace
 * 0 and its uid, as the kubelet's status manager sends) a short while later, never after its
 * grace runs out. A kubelet that died — killed by a scenario, or its instance shut down — posts
 * no status and confirms nothing; what follows is Kubernetes' ({@link NodeLifecycleStandIn}).
 * Instances of a {@link NeverRegisters} selector, or whose user data no kubelet can boot from,
 * run but never register.
 */
export class KubeletStandIn {
  private readonly tracked = new Map<string, TrackedInstance>();
  private readonly timings: Required<KubeletTimings>;
  private readonly boundAt = new Map<string, number>();
  private readonly neverRegister: NeverRegisters[] = [];
  /** Kubelets killed since the last step, reported by it. */
  private readonly killed: KubeletEvent[] = [];
  private readonly lifecycle: NodeLifecycleStandIn;

  constructor(
    private readonly store: KubeStore,
    private readonly ec2: FakeEc2,
    private readonly clock: Clock,
    timings: KubeletTimings = {},
  ) {
    this.timings = {
      registerAfterMs: timings.registerAfterMs ?? 20_000,
      windowsRegisterAfterMs: timings.windowsRegisterAfterMs ?? 180_000,
      readyAfterMs: timings.readyAfterMs ?? 8_000,
      startupTaintsAfterMs: timings.startupTaintsAfterMs ?? 4_000,
      podStartMs: timings.podStartMs ?? 3_000,
      podStopMs: timings.podStopMs ?? 2_000,
    };
    this.lifecycle = new NodeLifecycleStandIn(store, ec2);
  }

  /** From now on, instances matching `selector` boot but never register. */
  neverRegisters(selector: NeverRegisters): void {
    this.neverRegister.push(selector);
  }

  /**
   * Kills the kubelet of the node on `instanceId`: it stops heartbeats and never confirms a pod's
   * deletion again. Returns false when the world runs no such instance.
   */
  killKubelet(instanceId: string): boolean {
    const tracked = this.tracked.get(instanceId);
    if (!tracked || tracked.deadSince !== undefined) return tracked !== undefined;
    tracked.deadSince = this.clock.now();
    this.killed.push({ kind: 'kubelet-died', node: tracked.nodeName, instanceId });
    return true;
  }

  /** Whether the kubelet of `node` is known dead. */
  isDead(node: string): boolean {
    return this.deadSince(node) !== undefined;
  }

  /** The next instant something falls due without an invocation (pods confirmed, nodes Unknown, pods evicted or collected). */
  nextDue(): number {
    const now = this.clock.now();
    let next = this.lifecycle.nextDue(now, (n) => this.deadSince(n));
    for (const pod of this.store.list('pods').items) {
      const at = this.confirmAt(pod);
      if (at !== undefined && at > now && at < next) next = at;
    }
    return next;
  }

  /** The Node name of an instance the world booted, if any. */
  nodeOf(instanceId: string): string | undefined {
    return this.tracked.get(instanceId)?.nodeName;
  }

  /** Whether some node is still coming up (booting, not Ready, startup taints on). */
  get settling(): boolean {
    for (const t of this.tracked.values()) {
      if (t.deadSince !== undefined || t.neverRegisters !== undefined) continue;
      if (t.phase === 'booting' || t.phase === 'registered' || (t.phase === 'ready' && !t.startupLifted))
        return true;
    }
    return this.boundAt.size > 0;
  }

  /** Advances every node and pod to what the clock says; returns what happened. */
  step(): KubeletEvent[] {
    const now = this.clock.now();
    const events: KubeletEvent[] = [];
    const seen = new Set<string>();
    for (const instance of this.ec2.listInstances()) {
      const id = instance.InstanceId ?? '';
      seen.add(id);
      const state = instance.State?.Name ?? 'pending';
      let tracked = this.tracked.get(id);
      if (!tracked && state === 'running') tracked = this.track(instance, now);
      if (!tracked) continue;
      if (state !== 'running' && tracked.phase !== 'gone') events.push(this.gone(tracked));
      else this.advance(tracked, now, events);
    }
    for (const tracked of this.tracked.values())
      if (!seen.has(tracked.instanceId) && tracked.phase !== 'gone') events.push(this.gone(tracked));
    events.push(...this.killed.splice(0));
    events.push(...this.confirmTerminations(now));
    for (const e of this.lifecycle.step(now, (n) => this.deadSince(n)))
      events.push({
        kind: e.kind,
        node: e.node,
        instanceId: '',
        ...(e.kind === 'pods-evicted-unreachable' ? { detail: String(e.count) } : {}),
        ...(e.kind === 'pod-collected' ? { detail: e.pod } : {}),
      });
    events.push(...this.startPods(now));
    return events;
  }

  private deadSince(node: string): number | undefined {
    for (const t of this.tracked.values()) if (t.nodeName === node) return t.deadSince;
    return undefined;
  }

  /**
   * When the kubelet confirms `pod`'s deletion: its stop delay after the delete, at the latest
   * when its grace runs out; undefined when nothing will (not deleting, unbound, already
   * confirmed, or its kubelet is dead or its Node gone).
   */
  private confirmAt(pod: KubeObject): number | undefined {
    const meta = pod.metadata;
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!meta.deletionTimestamp || !nodeName || meta.deletionGracePeriodSeconds === 0) return undefined;
    if (this.isDead(nodeName)) return undefined;
    const ends = Date.parse(meta.deletionTimestamp);
    const requested = ends - (meta.deletionGracePeriodSeconds ?? 0) * 1000;
    return Math.min(requested + this.timings.podStopMs, ends);
  }

  /** Deletes with grace 0 the pods whose containers have stopped on a live kubelet. */
  private confirmTerminations(now: number): KubeletEvent[] {
    const events: KubeletEvent[] = [];
    const nodes = new Set(this.store.list('nodes').items.map((n) => n.metadata.name));
    for (const pod of this.store.list('pods').items) {
      const at = this.confirmAt(pod);
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
      if (at === undefined || now < at || !nodes.has(nodeName)) continue;
      this.store.delete('pods', pod.metadata.name ?? '', {
        namespace: pod.metadata.namespace,
        gracePeriodSeconds: 0,
        preconditions: { uid: pod.metadata.uid ?? '' },
      });
      events.push({
        kind: 'pod-terminated',
        node: nodeName,
        instanceId: '',
        detail: `${pod.metadata.namespace}/${pod.metadata.name}`,
      });
    }
    return events;
  }

  private track(instance: Instance, now: number): TrackedInstance {
    const tracked: TrackedInstance = {
      instanceId: instance.InstanceId ?? '',
      instanceType: instance.InstanceType ?? '',
      zone: instance.Placement?.AvailabilityZone ?? '',
      nodeName: instance.PrivateDnsName ?? instance.InstanceId ?? '',
      runningSince: now,
      registerAfterMs: isWindowsPlatform(instance.Platform)
        ? this.timings.windowsRegisterAfterMs
        : this.timings.registerAfterMs,
      phase: 'booting',
      since: now,
      startupLifted: false,
    };
    this.tracked.set(tracked.instanceId, tracked);
    return tracked;
  }

  private advance(t: TrackedInstance, now: number, events: KubeletEvent[]): void {
    const { readyAfterMs, startupTaintsAfterMs } = this.timings;
    if (t.deadSince !== undefined || t.neverRegisters !== undefined) return;
    if (t.phase === 'booting' && now >= t.since + t.registerAfterMs) {
      const failure = this.register(t);
      if (failure !== undefined) {
        t.neverRegisters = failure;
        events.push({ kind: 'never-registers', node: t.nodeName, instanceId: t.instanceId, detail: failure });
        return;
      }
      t.phase = 'registered';
      t.since = now;
      events.push({ kind: 'registered', node: t.nodeName, instanceId: t.instanceId });
    }
    if (t.phase === 'registered' && now >= t.since + readyAfterMs) {
      this.markReady(t.nodeName);
      t.phase = 'ready';
      t.since = now;
      events.push({ kind: 'ready', node: t.nodeName, instanceId: t.instanceId });
    }
    if (t.phase === 'ready' && !t.startupLifted && now >= t.since + startupTaintsAfterMs) {
      const lifted = this.liftStartupTaints(t);
      if (lifted !== undefined) {
        t.startupLifted = true;
        if (lifted > 0)
          events.push({ kind: 'startup-taints-lifted', node: t.nodeName, instanceId: t.instanceId });
      }
    }
  }

  /** Registers the Node; returns why it cannot when it never will. */
  private register(t: TrackedInstance): string | undefined {
    const instance = this.ec2.instance(t.instanceId);
    const nodeClass = instance?.Tags?.find((tag) => tag.Key === 'karpenter.k8s.aws/ec2nodeclass')?.Value;
    const never = this.neverRegister.find(
      (s) =>
        (s.instanceType === undefined || s.instanceType === t.instanceType) &&
        (s.nodeClass === undefined || s.nodeClass === nodeClass),
    );
    if (never)
      return `the scenario has ${never.instanceType ? `instance type ${never.instanceType}` : `EC2NodeClass ${never.nodeClass}`} never register`;
    const image = instance?.ImageId === undefined ? undefined : this.ec2.image(instance.ImageId);
    let boot: ReturnType<typeof readNodeBootstrap>;
    try {
      boot = readNodeBootstrap(
        t.instanceId,
        this.ec2.instanceUserData(t.instanceId),
        isWindowsPlatform(image?.Platform) ? 'windows' : 'linux',
      );
    } catch (error) {
      // A real node with unbootable user data runs and never joins; the world does the same.
      if (error instanceof UnbootableUserDataError) return error.message;
      throw error;
    }
    const info = this.ec2.describeInstanceTypes({ InstanceTypes: [t.instanceType as never] })
      .InstanceTypes?.[0];
    const template = instance?.Tags?.find((tag) => tag.Key === 'aws:ec2launchtemplate:id')?.Value;
    const rootVolumeGiB = (
      template === undefined ? undefined : this.ec2.launchTemplateData(template)
    )?.BlockDeviceMappings?.find((m) => m.DeviceName === (boot.dataDevice ?? image?.RootDeviceName))?.Ebs
      ?.VolumeSize;
    this.store.create(
      'nodes',
      registeredNode(
        {
          ...t,
          info,
          image,
          registeredAt: this.clock.now(),
          ...(rootVolumeGiB !== undefined ? { rootVolumeGiB } : {}),
        },
        boot,
      ),
      { keepStatus: true },
    );
    return undefined;
  }

  private markReady(nodeName: string): void {
    const node = this.store.find('nodes', nodeName) as Json | undefined;
    if (!node || node.metadata.deletionTimestamp) return;
    const taints = ((node.spec?.taints ?? []) as { key: string; effect: string }[]).filter(
      (t) => !(t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect),
    );
    const updated = this.store.update('nodes', { ...node, spec: { ...node.spec, taints } }) as Json;
    this.store.updateStatus('nodes', {
      ...updated,
      status: {
        ...updated.status,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            lastTransitionTime: formatKubeTime(new Date(this.clock.now())),
          },
        ],
      },
    });
  }

  /** Removes the NodeClaim's startup taints (what a CNI or agent daemon does once up); undefined while its NodeClaim is not found. */
  private liftStartupTaints(t: TrackedInstance): number | undefined {
    const providerID = `aws:///${t.zone}/${t.instanceId}`;
    const claim = this.store
      .list('nodeclaims.karpenter.sh')
      .items.find((c) => (c.status as { providerID?: string } | undefined)?.providerID === providerID);
    if (!claim) return undefined;
    const startup = ((claim as Json).spec?.startupTaints ?? []) as { key: string; effect: string }[];
    const node = this.store.find('nodes', t.nodeName) as Json | undefined;
    if (!node || startup.length === 0) return 0;
    const taints = (node.spec?.taints ?? []) as { key: string; effect: string }[];
    const kept = taints.filter((t) => !startup.some((s) => s.key === t.key && s.effect === t.effect));
    if (kept.length !== taints.length)
      this.store.update('nodes', { ...node, spec: { ...node.spec, taints: kept } });
    return taints.length - kept.length;
  }

  /** The instance shut down: its kubelet is gone with it; Kubernetes notices as {@link NodeLifecycleStandIn} says. */
  private gone(t: TrackedInstance): KubeletEvent {
    t.phase = 'gone';
    t.deadSince ??= this.clock.now();
    return { kind: 'instance-gone', node: t.nodeName, instanceId: t.instanceId };
  }

  /** Bound pods on Ready nodes with a live kubelet run after the start delay. */
  private startPods(now: number): KubeletEvent[] {
    const events: KubeletEvent[] = [];
    const ready = new Set(
      this.store
        .list('nodes')
        .items.filter((n) =>
          (((n as Json).status?.conditions ?? []) as { type: string; status: string }[]).some(
            (c) => c.type === 'Ready' && c.status === 'True',
          ),
        )
        .map((n) => n.metadata.name),
    );
    const pods = this.store.list('pods').items;
    const live = new Set(pods.map((p) => p.metadata.uid ?? ''));
    for (const uid of [...this.boundAt.keys()]) if (!live.has(uid)) this.boundAt.delete(uid);
    for (const pod of pods) {
      const nodeName = (pod.spec as { nodeName?: string })?.nodeName;
      if (!nodeName) continue;
      const key = pod.metadata.uid ?? '';
      const status = (pod.status ?? {}) as { phase?: string };
      if (status.phase !== 'Pending' || !ready.has(nodeName)) continue;
      if (pod.metadata.deletionTimestamp || this.isDead(nodeName)) {
        // Never started: nothing to wait for.
        this.boundAt.delete(key);
        continue;
      }
      const since = this.boundAt.get(key) ?? now;
      this.boundAt.set(key, since);
      if (now < since + this.timings.podStartMs) continue;
      // Stamped as pkg/kubelet/status/status_manager.go `updateLastTransitionTime` does (read by scale-downs).
      const conditions = [
        ...(((pod as Json).status?.conditions ?? []) as { type: string }[]).filter((c) => c.type !== 'Ready'),
        { type: 'Ready', status: 'True', lastTransitionTime: formatKubeTime(new Date(now)) },
      ];
      this.store.updateStatus('pods', {
        ...pod,
        status: { ...(pod as Json).status, phase: 'Running', conditions },
      });
      this.boundAt.delete(key);
      events.push({
        kind: 'pod-running',
        node: nodeName,
        instanceId: '',
        detail: `${pod.metadata.namespace}/${pod.metadata.name}`,
      });
    }
    return events;
  }
}
