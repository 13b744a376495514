import type { ListWatchSource } from '../../shared/core/ports/list-watch';
import type { WatchedResource } from '../../watcher/watched-resource';
import { qualifiedName } from '../fakes/kube';
import type { KubeStore } from '../fakes/kube/store';

/** The store's resource name of each resource the watcher follows. */
const STORE_NAMES: Readonly<Record<WatchedResource, string>> = {
  pods: 'pods',
  nodes: 'nodes',
  nodepools: 'nodepools.karpenter.sh',
  ec2nodeclasses: 'ec2nodeclasses.karpenter.k8s.aws',
  nodeclaims: 'nodeclaims.karpenter.sh',
};

/**
 * The watcher's real list/watch sources, observed: each records the highest resourceVersion it
 * has delivered and whether a watch is open, and the store's own changes are counted per
 * resource, so the simulator can wait (in real time, with virtual time standing still: the world's
 * SequencedIo counts {@link ObservedSources.caughtUp} among its quiet conditions) until the
 * watcher has seen every change before it moves the clock — otherwise a change would reach the
 * watcher "late" in virtual time only because the loopback HTTP stream had not been read yet.
 */
export class ObservedSources {
  readonly sources: Record<WatchedResource, ListWatchSource>;
  private readonly delivered = new Map<string, number>();
  /** Watches open (asked for and not yet done or aborted), by store name. */
  private readonly watching = new Map<string, number>();
  private readonly latest = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(inner: Record<WatchedResource, ListWatchSource>, store: KubeStore) {
    this.unsubscribe = store.subscribe((event) => {
      this.latest.set(qualifiedName(event.resource), event.resourceVersion);
    });
    this.sources = Object.fromEntries(
      (Object.keys(inner) as WatchedResource[]).map((resource) => [
        resource,
        this.observe(resource, inner[resource]),
      ]),
    ) as Record<WatchedResource, ListWatchSource>;
  }

  /**
   * Whether every open watch has delivered the last change the store made to its resource. A
   * resource with no watch open is caught up as far as it can be: its reflector waits on a
   * (virtual) backoff before it lists again, and that list will see the change.
   */
  caughtUp(): boolean {
    for (const name of Object.values(STORE_NAMES)) {
      if ((this.watching.get(name) ?? 0) === 0) continue;
      if ((this.latest.get(name) ?? 0) > (this.delivered.get(name) ?? 0)) return false;
    }
    return true;
  }

  close(): void {
    this.unsubscribe();
  }

  private observe(resource: WatchedResource, inner: ListWatchSource): ListWatchSource {
    const name = STORE_NAMES[resource];
    const mark = (rv: string | undefined) => {
      const n = Number(rv);
      if (Number.isFinite(n) && n > (this.delivered.get(name) ?? 0)) this.delivered.set(name, n);
    };
    return {
      list: async (token) => {
        const page = await inner.list(token);
        if (page.continueToken === undefined) mark(page.resourceVersion);
        return page;
      },
      // A watch counts as open once the server has answered it (then it has written every change
      // after its resourceVersion): one asked for but still held by the world's SequencedIo
      // must not hold the world back, since the world serves it only when it is quiet.
      watch: async (resourceVersion, onEvent, onDone) => {
        let state: 'asked' | 'open' | 'done' = 'asked';
        const close = () => {
          if (state === 'open') this.watching.set(name, (this.watching.get(name) ?? 1) - 1);
          state = 'done';
        };
        const stream = await inner.watch(
          resourceVersion,
          (type, object) => {
            onEvent(type, object);
            mark((object as { metadata?: { resourceVersion?: string } })?.metadata?.resourceVersion);
          },
          (error) => {
            close();
            onDone(error);
          },
        );
        if (state === 'asked') {
          state = 'open';
          this.watching.set(name, (this.watching.get(name) ?? 0) + 1);
        }
        return {
          abort() {
            close();
            stream.abort();
          },
        };
      },
    };
  }
}
