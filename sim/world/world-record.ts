import type { KubeObject } from '../fakes/kube';
import type { ClusterWorld } from './cluster-world';

/** An Event object recorded in the cluster. */
export interface RecordedEvent {
  /** Virtual ms since the record started. */
  readonly at: number;
  readonly reason: string;
  /** The involved object's kind (`NodeClaim`, `Node`, `Pod`…). */
  readonly kind: string;
  readonly name: string;
  readonly message: string;
}

/** A pod bound to a node, with the node's labels when it was bound. */
export interface PodBinding {
  /** Virtual ms since the record started. */
  readonly at: number;
  /** `namespace/name`. */
  readonly pod: string;
  readonly node: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
}

/** A NodeClaim's way out: when its deletion was asked for and when it was gone (finalized). */
export interface NodeClaimDeletion {
  readonly name: string;
  /** Virtual ms since the record started. */
  readonly deletedAt: number;
  finalizedAt?: number;
}

/** A pod carrying `karpenter.sh/do-not-disrupt: "true"` that podlift evicted or deleted. */
export interface DoNotDisruptRemoval {
  readonly at: number;
  readonly pod: string;
  readonly how: 'evicted' | 'deleted';
}

const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';

/**
 * What happened in the world, kept for a scenario's expectations and the soak: the Events
 * recorded (reason, object kind, message, time), every pod's bindings to nodes (whoever bound it:
 * a pod that lands on a node and is evicted later is on record), every NodeClaim's deletion and
 * finalization, and the
 * do-not-disrupt pods podlift itself evicted or deleted — read from the API server's request
 * log, which only podlift's clients write to (the world's stand-ins use the store directly).
 */
export class WorldRecord {
  readonly events: RecordedEvent[] = [];
  readonly nodeClaimDeletions = new Map<string, NodeClaimDeletion>();
  readonly doNotDisruptRemovals: DoNotDisruptRemoval[] = [];
  readonly bindings: PodBinding[] = [];
  private readonly boundTo = new Map<string, string>();
  private readonly annotated = new Map<string, boolean>();
  private requestCursor = 0;
  private readonly startedAt: number;

  constructor(private readonly world: ClusterWorld) {
    this.startedAt = world.time.now();
    world.fakes.kube.store.subscribe((event) => {
      const plural = event.resource.plural;
      const object = event.object;
      if (plural === 'events' && event.type === 'ADDED') this.noteEvent(object);
      else if (plural === 'nodeclaims') this.noteNodeClaim(event.type, object);
      else if (plural === 'pods' && event.type !== 'DELETED') {
        const pod = `${object.metadata.namespace}/${object.metadata.name}`;
        this.annotated.set(pod, object.metadata.annotations?.[DO_NOT_DISRUPT] === 'true');
        this.noteBinding(pod, object);
      } else if (plural === 'pods')
        this.boundTo.delete(`${object.metadata.namespace}/${object.metadata.name}`);
    });
  }

  /** Virtual ms since the record started. */
  private get elapsed(): number {
    return this.world.time.now() - this.startedAt;
  }

  /** Reads podlift's requests since the last call (call once per world step). */
  poll(): void {
    const requests = this.world.fakes.kube.requests;
    if (this.requestCursor > requests.length) this.requestCursor = 0;
    for (const r of requests.slice(this.requestCursor)) {
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/eviction)?$/.exec(r.path);
      if (!m) continue;
      const evicted = m[3] !== undefined && r.method === 'POST' && r.status === 201;
      const deleted = m[3] === undefined && r.method === 'DELETE' && r.status === 200;
      const pod = `${m[1]}/${m[2]}`;
      if ((evicted || deleted) && this.annotated.get(pod))
        this.doNotDisruptRemovals.push({ at: this.elapsed, pod, how: evicted ? 'evicted' : 'deleted' });
    }
    this.requestCursor = requests.length;
  }

  /** NodeClaims whose deletion was asked for more than `withinMs` ago and that are still there. */
  unfinalized(withinMs: number): NodeClaimDeletion[] {
    return [...this.nodeClaimDeletions.values()].filter(
      (d) => d.finalizedAt === undefined && this.elapsed - d.deletedAt > withinMs,
    );
  }

  private noteEvent(object: KubeObject): void {
    const involved = (object as { involvedObject?: { kind?: string; name?: string } }).involvedObject ?? {};
    this.events.push({
      at: this.elapsed,
      reason: String((object as { reason?: string }).reason ?? ''),
      kind: involved.kind ?? '',
      name: involved.name ?? '',
      message: String((object as { message?: string }).message ?? ''),
    });
  }

  /** A pod's `spec.nodeName` set or changed: a binding, with its node's labels as they are now. */
  private noteBinding(pod: string, object: KubeObject): void {
    const node = (object.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!node || this.boundTo.get(pod) === node) return;
    this.boundTo.set(pod, node);
    const labels = this.world.fakes.kube.store.find('nodes', node)?.metadata.labels ?? {};
    this.bindings.push({ at: this.elapsed, pod, node, nodeLabels: { ...labels } });
  }

  private noteNodeClaim(type: string, object: KubeObject): void {
    const name = object.metadata.name ?? '';
    const known = this.nodeClaimDeletions.get(name);
    if (!known && object.metadata.deletionTimestamp)
      this.nodeClaimDeletions.set(name, { name, deletedAt: this.elapsed });
    if (type === 'DELETED') {
      const deletion = this.nodeClaimDeletions.get(name) ?? { name, deletedAt: this.elapsed };
      deletion.finalizedAt ??= this.elapsed;
      this.nodeClaimDeletions.set(name, deletion);
    }
  }
}
