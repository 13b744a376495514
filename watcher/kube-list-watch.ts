import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api, CustomObjectsApi, Watch } from '@kubernetes/client-node';
import type { ListPage, ListWatchSource, WatchEventType } from '../shared/core/ports/list-watch';
import type { WatchedResource } from './watched-resource';
import { RESOURCE_LOCATIONS, WATCHED_RESOURCES } from './watched-resource';

/** Options of {@link kubeListWatchSources}. */
export interface KubeListWatchOptions {
  /**
   * Objects per list page.
   * @default 500
   */
  readonly pageSize?: number;
  /**
   * The server ends each watch after this long; the reflector then resumes it. Bounds how long
   * a silently dead connection can go unnoticed (client-node 1.4's watch has no timeout of its own).
   * @default 300
   */
  readonly watchTimeoutSeconds?: number;
}

interface RawList {
  readonly items?: readonly unknown[];
  readonly metadata?: {
    readonly resourceVersion?: string;
    readonly continue?: string;
    readonly _continue?: string;
  };
}

/**
 * List/watch of every watched resource through @kubernetes/client-node: typed lists for pods
 * and nodes, custom-object lists for the Karpenter CRDs, and client-node's `Watch` with
 * bookmarks and a server-side timeout.
 */
export function kubeListWatchSources(
  kubeConfig: KubeConfig,
  options: KubeListWatchOptions = {},
): Record<WatchedResource, ListWatchSource> {
  const limit = options.pageSize ?? 500;
  const timeoutSeconds = options.watchTimeoutSeconds ?? 300;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const watch = new Watch(kubeConfig);

  const listers: Record<WatchedResource, (token: string | undefined) => Promise<RawList>> = {
    pods: (token) => core.listPodForAllNamespaces({ limit, ...(token ? { _continue: token } : {}) }),
    nodes: (token) => core.listNode({ limit, ...(token ? { _continue: token } : {}) }),
    nodepools: customLister('nodepools'),
    ec2nodeclasses: customLister('ec2nodeclasses'),
    nodeclaims: customLister('nodeclaims'),
  };

  function customLister(resource: WatchedResource): (token: string | undefined) => Promise<RawList> {
    const { group, version, plural } = RESOURCE_LOCATIONS[resource];
    return async (token) =>
      (await custom.listClusterCustomObject({
        group,
        version,
        plural,
        limit,
        ...(token ? { _continue: token } : {}),
      })) as RawList;
  }

  const source = (resource: WatchedResource): ListWatchSource => ({
    async list(continueToken): Promise<ListPage> {
      const list = await listers[resource](continueToken);
      const next = list.metadata?._continue ?? list.metadata?.continue;
      return {
        items: list.items ?? [],
        resourceVersion: list.metadata?.resourceVersion ?? '',
        ...(next ? { continueToken: next } : {}),
      };
    },
    async watch(resourceVersion, onEvent, onDone) {
      let aborted = false;
      const controller = await watch.watch(
        RESOURCE_LOCATIONS[resource].path,
        { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        (type: string, object: unknown) => {
          if (!aborted) onEvent(type as WatchEventType, object);
        },
        (error: unknown) => {
          if (!aborted) onDone(error);
        },
      );
      return {
        abort() {
          aborted = true;
          controller.abort();
        },
      };
    },
  });

  return Object.fromEntries(WATCHED_RESOURCES.map((resource) => [resource, source(resource)])) as Record<
    WatchedResource,
    ListWatchSource
  >;
}
