import type { KubeObject } from './kube-object';
import { isJsonObject } from './kube-object';
import { badRequest, failureStatus, KubeApiError } from './status';

/** The 410 message of a continue token whose list snapshot was compacted away. */
export const continueExpiredMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** How many paged lists may be continued at once; the oldest is forgotten past it. */
const maxListSnapshots = 64;

/** The result a paged list is continued from: taken at its first page, as etcd reads at one revision. */
export interface ListSnapshot {
  readonly resourceVersion: string;
  readonly items: readonly KubeObject[];
}

/**
 * The snapshots behind paged lists and the continue tokens that point into them (the API
 * server's are opaque base64 JSON naming a revision and a position; these name a snapshot and
 * an offset): a continued page reads the snapshot its first page took, so pages stay
 * consistent while objects change, until a compaction expires them (410).
 */
export class ListSnapshots {
  private readonly snapshots = new Map<number, ListSnapshot>();
  private nextId = 1;

  /** The snapshot and offset `token` continues from; 400 for a token that is not one, 410 for an expired one. */
  resume(token: string): { snapshot: ListSnapshot; id: number; offset: number } {
    const { id, offset } = decode(token);
    const snapshot = this.snapshots.get(id);
    if (!snapshot) throw new KubeApiError(failureStatus(410, continueExpiredMessage, 'Expired'));
    return { snapshot, id, offset };
  }

  /** Keeps `snapshot` for the pages after the first; its id. */
  keep(snapshot: ListSnapshot): number {
    const id = this.nextId++;
    this.snapshots.set(id, snapshot);
    if (this.snapshots.size > maxListSnapshots)
      this.snapshots.delete(this.snapshots.keys().next().value as number);
    return id;
  }

  /** The continue token of the page of snapshot `id` starting at `offset`. */
  token(id: number, resourceVersion: string, offset: number): string {
    return Buffer.from(
      JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(resourceVersion), id, offset }),
    ).toString('base64url');
  }

  /** Forgets every snapshot, as a compaction does. */
  clear(): void {
    this.snapshots.clear();
  }
}

function decode(token: string): { id: number; offset: number } {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isJsonObject(decoded) && typeof decoded.id === 'number' && typeof decoded.offset === 'number') {
      return { id: decoded.id, offset: decoded.offset };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest(`invalid continue token: ${token}`);
}
