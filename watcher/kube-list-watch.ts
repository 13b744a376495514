import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api, CustomObjectsApi, Watch } from '@kubernetes/client-node';
import type { ListPage, ListWatchSource, WatchEventType, WatchStream } from '../shared/core/ports/list-watch';
import { isApiResourceNotServed } from '../shared/kube/api-errors';
import { ResourceNotServedError } from '../shared/kube/resource-not-served-error';
import type { WatchedResource } from './watched-resource';
import { RESOURCE_LOCATIONS, WATCHED_RESOURCES } from './watched-resource';

/** Options of {@link kubeListWatchSources} and {@link KubeListWatchSource}. */
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

/** The client-node clients the sources of one cluster share. */
export interface KubeListWatchClients {
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  readonly watch: Watch;
}

/**
 * List/watch of every watched resource through @kubernetes/client-node: typed lists for pods
 * and nodes, custom-object lists for the Karpenter CRDs, and client-node's `Watch` with
 * bookmarks and a server-side timeout. The sources share one set of clients.
 */
export function kubeListWatchSources(
  kubeConfig: KubeConfig,
  options: KubeListWatchOptions = {},
): Record<WatchedResource, ListWatchSource> {
  const clients: KubeListWatchClients = {
    core: kubeConfig.makeApiClient(CoreV1Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    watch: new Watch(kubeConfig),
  };
  return Object.fromEntries(
    WATCHED_RESOURCES.map((resource) => [resource, new KubeListWatchSource(resource, clients, options)]),
  ) as Record<WatchedResource, KubeListWatchSource>;
}

/** The {@link ListWatchSource} port for one watched resource, on @kubernetes/client-node. */
export class KubeListWatchSource implements ListWatchSource {
  private readonly limit: number;
  private readonly timeoutSeconds: number;

  constructor(
    private readonly resource: WatchedResource,
    private readonly clients: KubeListWatchClients,
    options: KubeListWatchOptions = {},
  ) {
    this.limit = options.pageSize ?? 500;
    this.timeoutSeconds = options.watchTimeoutSeconds ?? 300;
  }

  async list(continueToken: string | undefined): Promise<ListPage> {
    let list: RawList;
    try {
      list = await this.listRaw(continueToken);
    } catch (error) {
      throw this.notServedOr(error, 'listing');
    }
    const next = list.metadata?._continue ?? list.metadata?.continue;
    return {
      items: list.items ?? [],
      resourceVersion: list.metadata?.resourceVersion ?? '',
      ...(next ? { continueToken: next } : {}),
    };
  }

  async watch(
    resourceVersion: string,
    onEvent: (type: WatchEventType, object: unknown) => void,
    onDone: (error: unknown) => void,
  ): Promise<WatchStream> {
    let aborted = false;
    const controller = await this.clients.watch.watch(
      RESOURCE_LOCATIONS[this.resource].path,
      { resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.timeoutSeconds },
      (type: string, object: unknown) => {
        if (!aborted) onEvent(type as WatchEventType, object);
      },
      (error: unknown) => {
        if (!aborted) onDone(error ? this.notServedOr(error, 'watching') : error);
      },
    );
    return {
      abort() {
        aborted = true;
        controller.abort();
      },
    };
  }

  /**
   * A 404 naming no object (a list's, or a watch refused with 404) means the collection is not
   * served, most likely a CRD not installed: said so, naming it, for the logs and /readyz.
   */
  private notServedOr(error: unknown, doing: 'listing' | 'watching'): unknown {
    const refusedWatch = (error as { statusCode?: unknown } | null)?.statusCode === 404;
    if (!isApiResourceNotServed(error) && !refusedWatch) return error;
    return new ResourceNotServedError(RESOURCE_LOCATIONS[this.resource], `${doing} ${this.resource}`, {
      cause: error,
    });
  }

  private async listRaw(token: string | undefined): Promise<RawList> {
    const page = { limit: this.limit, ...(token ? { _continue: token } : {}) };
    const { core, custom } = this.clients;
    if (this.resource === 'pods') return core.listPodForAllNamespaces(page);
    if (this.resource === 'nodes') return core.listNode(page);
    const { group, version, plural } = RESOURCE_LOCATIONS[this.resource];
    return (await custom.listClusterCustomObject({ group, version, plural, ...page })) as RawList;
  }
}
