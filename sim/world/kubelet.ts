import type { Instance } from '@aws-sdk/client-ec2';
import type { Clock } from '../../shared/core/ports/time';
import type { FakeEc2 } from '../fakes/aws/ec2';
import { formatKubeTime, type KubeObject } from '../fakes/kube';
import type { KubeStore } from '../fakes/kube/store';
import { readNodeBootstrap } from './node-bootstrap';

/** How long a node takes to come up, in virtual milliseconds. */
export interface KubeletTimings {
  /** From the instance running to its Node registering (boot, nodeadm, kubelet start). @default 20 s */
  readonly registerAfterMs?: number;
  /** From registration to Ready (CNI up). @default 8 s */
  readonly readyAfterMs?: number;
  /** From Ready to the startup taints lifted by the agents that own them. @default 4 s */
  readonly startupTaintsAfterMs?: number;
  /** From a pod bound to it running Ready. @default 3 s */
  readonly podStartMs?: number;
}

/** Something the world's nodes did, for the simulator's log. */
export interface KubeletEvent {
  readonly kind: 'registered' | 'ready' | 'startup-taints-lifted' | 'instance-gone' | 'pod-running';
  readonly node: string;
  readonly instanceId: string;
  readonly detail?: string;
}

interface TrackedInstance {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly nodeName: string;
  readonly runningSince: number;
  phase: 'booting' | 'registered' | 'ready' | 'gone';
  since: number;
  startupLifted: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: the stand-in reads and writes the API server's untyped JSON
type Json = Record<string, any>;

const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

/**
 * A stand-in for the kubelets of the instances EC2 runs, plus the control-plane parts that act on
 * their behalf: each running instance boots after a modelled delay and registers a Node with the
 * labels and taints its user data asks for (read by {@link readNodeBootstrap}, not taken from
 * the NodeClaim), the well-known labels kubelet and the cloud provider add, and allocatable
 * computed as the EKS AMI does; the node lifecycle controller's not-ready taint comes off when
 * it turns Ready; the agents owning the NodeClaim's startup taints lift them; bound pods start.
 * When the instance shuts down, its pods disappear and the cloud node lifecycle controller
 * deletes the Node (which podlift's finalizer holds until its termination loop lets go).
 */
export class KubeletStandIn {
  private readonly tracked = new Map<string, TrackedInstance>();
  private readonly timings: Required<KubeletTimings>;
  private readonly boundAt = new Map<string, number>();

  constructor(
    private readonly store: KubeStore,
    private readonly ec2: FakeEc2,
    private readonly clock: Clock,
    timings: KubeletTimings = {},
  ) {
    this.timings = {
      registerAfterMs: timings.registerAfterMs ?? 20_000,
      readyAfterMs: timings.readyAfterMs ?? 8_000,
      startupTaintsAfterMs: timings.startupTaintsAfterMs ?? 4_000,
      podStartMs: timings.podStartMs ?? 3_000,
    };
  }

  /** The Node name of an instance the world booted, if any. */
  nodeOf(instanceId: string): string | undefined {
    return this.tracked.get(instanceId)?.nodeName;
  }

  /** Whether some node is still coming up (booting, not Ready, startup taints on). */
  get settling(): boolean {
    for (const t of this.tracked.values())
      if (t.phase === 'booting' || t.phase === 'registered' || (t.phase === 'ready' && !t.startupLifted))
        return true;
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
    events.push(...this.startPods(now));
    return events;
  }

  private track(instance: Instance, now: number): TrackedInstance {
    const tracked: TrackedInstance = {
      instanceId: instance.InstanceId ?? '',
      instanceType: instance.InstanceType ?? '',
      zone: instance.Placement?.AvailabilityZone ?? '',
      nodeName: instance.PrivateDnsName ?? instance.InstanceId ?? '',
      runningSince: now,
      phase: 'booting',
      since: now,
      startupLifted: false,
    };
    this.tracked.set(tracked.instanceId, tracked);
    return tracked;
  }

  private advance(t: TrackedInstance, now: number, events: KubeletEvent[]): void {
    const { registerAfterMs, readyAfterMs, startupTaintsAfterMs } = this.timings;
    if (t.phase === 'booting' && now >= t.since + registerAfterMs) {
      this.register(t);
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

  private register(t: TrackedInstance): void {
    const boot = readNodeBootstrap(t.instanceId, this.ec2.instanceUserData(t.instanceId));
    const info = this.ec2.describeInstanceTypes({ InstanceTypes: [t.instanceType as never] })
      .InstanceTypes?.[0];
    const arch = info?.ProcessorInfo?.SupportedArchitectures?.[0] === 'arm64' ? 'arm64' : 'amd64';
    const vcpus = info?.VCpuInfo?.DefaultVCpus ?? 2;
    const memoryMiB = info?.MemoryInfo?.SizeInMiB ?? 4096;
    const maxPods = boot.maxPods ?? 110;
    const allocatable = eksAllocatable(vcpus, memoryMiB, maxPods);
    const region = t.zone.slice(0, -1);
    this.store.create(
      'nodes',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: t.nodeName,
          labels: {
            ...boot.labels,
            'kubernetes.io/arch': arch,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/hostname': t.nodeName,
            'node.kubernetes.io/instance-type': t.instanceType,
            'topology.kubernetes.io/zone': t.zone,
            'topology.kubernetes.io/region': region,
          },
        },
        spec: {
          providerID: `aws:///${t.zone}/${t.instanceId}`,
          taints: [...boot.taints, NOT_READY_TAINT],
        },
        status: {
          capacity: { cpu: String(vcpus), memory: `${memoryMiB}Mi`, pods: String(maxPods) },
          allocatable,
          conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }],
        },
      },
      { keepStatus: true },
    );
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

  private gone(t: TrackedInstance): KubeletEvent {
    t.phase = 'gone';
    for (const pod of this.podsOn(t.nodeName))
      this.store.delete('pods', pod.metadata.name ?? '', { namespace: pod.metadata.namespace });
    const node = this.store.find('nodes', t.nodeName) as Json | undefined;
    if (node) {
      const updated = this.store.updateStatus('nodes', {
        ...node,
        status: {
          ...node.status,
          conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }],
        },
      });
      if (!updated.metadata.deletionTimestamp) this.store.delete('nodes', t.nodeName);
    }
    return { kind: 'instance-gone', node: t.nodeName, instanceId: t.instanceId };
  }

  private podsOn(nodeName: string): KubeObject[] {
    return this.store
      .list('pods')
      .items.filter((p) => (p.spec as { nodeName?: string })?.nodeName === nodeName);
  }

  /** Bound pods on Ready nodes run after the start delay; pods bound to nodes that are gone are collected. */
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
    const existing = new Set(this.store.list('nodes').items.map((n) => n.metadata.name));
    const pods = this.store.list('pods').items;
    const live = new Set(pods.map((p) => p.metadata.uid ?? ''));
    for (const uid of [...this.boundAt.keys()]) if (!live.has(uid)) this.boundAt.delete(uid);
    for (const pod of pods) {
      const nodeName = (pod.spec as { nodeName?: string })?.nodeName;
      if (!nodeName) continue;
      const key = pod.metadata.uid ?? '';
      if (!existing.has(nodeName)) {
        // The pod garbage collector deletes pods bound to Nodes that no longer exist (podgc).
        this.store.delete('pods', pod.metadata.name ?? '', { namespace: pod.metadata.namespace });
        continue;
      }
      const status = (pod.status ?? {}) as { phase?: string };
      if (status.phase !== 'Pending' || !ready.has(nodeName)) continue;
      const since = this.boundAt.get(key) ?? now;
      this.boundAt.set(key, since);
      if (now < since + this.timings.podStartMs) continue;
      const conditions = [
        ...(((pod as Json).status?.conditions ?? []) as { type: string }[]).filter((c) => c.type !== 'Ready'),
        { type: 'Ready', status: 'True' },
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

/**
 * Allocatable as the EKS AMI computes it (awslabs/amazon-eks-ami `get_cpu_millicores_to_reserve`
 * and `get_memory_mebibytes_to_reserve`): kube-reserved cpu 6 % of the first core, 1 % of the
 * second, 0.5 % of the next two, 0.25 % of the rest; memory 11 MiB per pod + 255 MiB; 100 Mi
 * hard eviction threshold; the memory the kernel sees is about 6 % below the nominal size.
 */
export function eksAllocatable(vcpus: number, memoryMiB: number, maxPods: number): Record<string, string> {
  const cores = [60, 10, 5, 5];
  let reservedMilli = 0;
  for (let core = 0; core < vcpus; core++) reservedMilli += core < cores.length ? cores[core] : 2.5;
  const cpu = Math.floor(vcpus * 1000 - reservedMilli);
  const memory = Math.floor(memoryMiB * 0.94 - (11 * maxPods + 255) - 100);
  return { cpu: `${cpu}m`, memory: `${memory}Mi`, pods: String(maxPods), 'ephemeral-storage': '17Gi' };
}
