import type { Clock } from '../../shared/core/ports/time';
import type { KubeStore } from '../fakes/kube/store';

interface Attachment {
  readonly name: string;
  readonly node: string;
  /** How long after the node's last pod went the volume is detached; never when undefined. */
  readonly detachAfterMs: number | undefined;
}

/**
 * A stand-in for the attach-detach controller (kubernetes pkg/controller/volume/attachdetach)
 * with the EBS CSI driver's external-attacher: a scenario attaches volumes to a node as
 * storage.k8s.io/v1 VolumeAttachments (attacher `ebs.csi.aws.com`, `status.attached: true`);
 * once no pod but DaemonSet and finished ones is left on the node (volumes unmounted), each is
 * detached and its VolumeAttachment deleted after its `detachAfterMs` — or never, a detach that
 * hangs, as one whose kubelet died does until someone forces it.
 */
export class AttachDetachStandIn {
  private readonly attachments: Attachment[] = [];
  private readonly emptySince = new Map<string, number>();
  private serial = 0;

  constructor(
    private readonly store: KubeStore,
    private readonly clock: Clock,
  ) {}

  /** Attaches `count` volumes to `node`; returns the VolumeAttachments' names. */
  attach(node: string, count: number, detachAfterMs: number | undefined): string[] {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const volume = `pvc-${String(++this.serial).padStart(8, '0')}`;
      const created = this.store.seed('volumeattachments.storage.k8s.io', {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name: `csi-${volume}` },
        spec: { attacher: 'ebs.csi.aws.com', nodeName: node, source: { persistentVolumeName: volume } },
        status: { attached: true },
      });
      names.push(created.metadata.name ?? '');
      this.attachments.push({ name: created.metadata.name ?? '', node, detachAfterMs });
    }
    return names;
  }

  /** Detaches what is due; returns the names of the VolumeAttachments deleted. */
  step(): string[] {
    if (this.attachments.length === 0) return [];
    const now = this.clock.now();
    const busy = new Set<string>();
    for (const pod of this.store.list('pods').items) {
      const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      const phase = (pod.status as { phase?: string } | undefined)?.phase;
      const owners = (pod.metadata.ownerReferences ?? []) as { kind?: string }[];
      const daemon = owners.some((o) => o.kind === 'DaemonSet');
      if (node && !daemon && phase !== 'Succeeded' && phase !== 'Failed') busy.add(node);
    }
    const detached: string[] = [];
    for (const a of [...this.attachments]) {
      if (busy.has(a.node)) {
        this.emptySince.delete(a.node);
        continue;
      }
      const since = this.emptySince.get(a.node) ?? now;
      this.emptySince.set(a.node, since);
      if (a.detachAfterMs === undefined || now < since + a.detachAfterMs) continue;
      if (this.store.find('volumeattachments.storage.k8s.io', a.name))
        this.store.delete('volumeattachments.storage.k8s.io', a.name);
      this.attachments.splice(this.attachments.indexOf(a), 1);
      detached.push(a.name);
    }
    return detached;
  }

  /** The next detach due after now (Infinity when none is). */
  nextDue(): number {
    const now = this.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const a of this.attachments) {
      const since = this.emptySince.get(a.node);
      if (since === undefined || a.detachAfterMs === undefined) continue;
      const at = since + a.detachAfterMs;
      if (at > now && at < next) next = at;
    }
    return next;
  }
}
