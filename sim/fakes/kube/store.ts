/**
 * The fake API server's state: objects by resource, one global resourceVersion counter (as
 * etcd's revision), a bounded history of changes for watches, and the write semantics of the
 * real registry (optimistic concurrency, status subresources, finalizers, generation).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../shared/core/ports/time';
import { systemClock } from '../../../shared/runtime/system-time';
import { deletesOnUpdate, planDeletion } from './graceful-delete';
import type { KubeObject } from './kube-object';
import { cloneObject, formatKubeTime, jsonEqual, sortedKeys, toKubeObject } from './kube-object';
import { ListSnapshots } from './list-snapshots';
import { patchedObject } from './patch-request';
import type { KnownResource, ResourceType } from './resources';
import { apiVersionOf, defaultResources, qualifiedName, ResourceRegistry } from './resources';
import type { FieldRequirement, LabelRequirement } from './selectors';
import {
  fieldsMatch,
  labelsMatch,
  parseFieldSelector,
  parseLabelSelector,
  SelectorSyntaxError,
} from './selectors';
import { type ApplyOptions, checkApplyRequest, mergeApplied } from './server-side-apply';
import { alreadyExists, badRequest, conflict, expired, invalid, KubeApiError, notFound } from './status';

/** A resource named as kubectl does (`pods`, `nodeclaims.karpenter.sh`) or its descriptor. */
export type ResourceRef = KnownResource | (string & {}) | ResourceType;

/** A change recorded in the history and delivered to watches. */
export interface StoredEvent {
  readonly resourceVersion: number;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly resource: ResourceType;
  /** The object after the change (for DELETED: its last state, at the deletion's resourceVersion). */
  readonly object: KubeObject;
  /** The object before the change (MODIFIED, DELETED). */
  readonly previous?: KubeObject;
}

/** Options of {@link KubeStore}. */
export interface KubeStoreOptions {
  /**
   * Clock for creationTimestamp and deletionTimestamp.
   * @default the wall clock
   */
  readonly clock?: Clock;
  /**
   * Generates metadata.uid.
   * @default crypto.randomUUID
   */
  readonly newUid?: () => string;
  /**
   * Random source for generateName suffixes, in [0, 1).
   * @default Math.random
   */
  readonly random?: () => number;
  /**
   * How many changes the watch history keeps; a watch from an older resourceVersion gets 410.
   * @default 10000
   */
  readonly historyLimit?: number;
  /**
   * The resource types served.
   * @default defaultResources
   */
  readonly resources?: readonly ResourceType[];
}

/** Where an object lives and which part of it a write may change. */
export interface WriteOptions {
  /** Namespace of a namespaced object; defaults to the object's own, then `default`. */
  readonly namespace?: string;
  /** `status` writes only `.status`, as `PUT|PATCH …/status` does. */
  readonly subresource?: 'status';
}

/** List filters and pagination, as the list query parameters carry them. */
export interface ListOptions {
  /** Only this namespace; all namespaces when absent. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; 0 or absent lists everything. */
  readonly limit?: number;
  /** The `continue` token of the previous page. */
  readonly continue?: string;
}

/** One page of a list. */
export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** Delete preconditions, as `DeleteOptions.preconditions`. */
export interface DeletePreconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** What a create through the API does to `.status` (the registry strategies' PrepareForCreate). */
function statusOnCreate(resource: ResourceType, given: unknown): unknown {
  if (!resource.statusSubresource) return given;
  if (resource.custom) return undefined;
  if (resource.group === '' && resource.plural === 'pods') return { phase: 'Pending' };
  if (resource.group === '' && resource.plural === 'namespaces') return { phase: 'Active' };
  if (resource.group === '' && resource.plural === 'nodes') return given;
  return {};
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Top-level fields whose change bumps metadata.generation. */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  const ignored = new Set(['apiVersion', 'kind', 'metadata', 'status']);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !ignored.has(k)));
  return [...keys].some((k) => !jsonEqual(a[k], b[k]));
}

function validationSelectorError(error: unknown): never {
  if (error instanceof SelectorSyntaxError) throw badRequest(error.message);
  throw error;
}

/** The in-memory state behind the fake API server; tests use it directly for setup and checks. */
export class KubeStore {
  readonly resources: ResourceRegistry;
  /** The clock timestamps come from. */
  readonly clock: Clock;
  private readonly newUid: () => string;
  private readonly random: () => number;
  private readonly historyLimit: number;
  private revision = 0;
  private compactedThrough = 0;
  private readonly objects = new Map<ResourceType, Map<string, KubeObject>>();
  /** What each field manager last applied to an object (server-side apply), by type, object and manager. */
  private readonly appliedBy = new Map<string, Record<string, unknown>>();
  private history: StoredEvent[] = [];
  private readonly listeners = new Set<(event: StoredEvent) => void>();
  private readonly pending: StoredEvent[] = [];
  private notifying = false;
  private readonly snapshots = new ListSnapshots();

  constructor(options: KubeStoreOptions = {}) {
    this.resources = new ResourceRegistry(options.resources ?? defaultResources);
    this.clock = options.clock ?? systemClock;
    this.newUid = options.newUid ?? randomUUID;
    this.random = options.random ?? Math.random;
    this.historyLimit = options.historyLimit ?? 10_000;
    for (const resource of this.resources.all) this.objects.set(resource, new Map());
  }

  /** The current (latest) resourceVersion, as a string. */
  get resourceVersion(): string {
    return String(this.revision);
  }

  /** The descriptor of `resource`. */
  resolve(resource: ResourceRef): ResourceType {
    return typeof resource === 'string' ? this.resources.named(resource) : resource;
  }

  /**
   * Creates an object as `POST` does: sets uid, creationTimestamp, generation and
   * resourceVersion, honours generateName, and resets `.status` the way the real registry does
   * (pods start `Pending`, CRDs with a status subresource lose it) unless `keepStatus`.
   */
  create(
    resource: ResourceRef,
    input: object,
    options: WriteOptions & { keepStatus?: boolean } = {},
  ): KubeObject {
    const type = this.resolve(resource);
    const object = toKubeObject(input);
    const namespace = this.namespaceFor(type, object, options.namespace);
    const meta = object.metadata;
    let name = meta.name;
    if (!name) {
      if (!meta.generateName) {
        throw invalid(type, '', [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: name or generateName is required',
            field: 'metadata.name',
          },
        ]);
      }
      do name = meta.generateName + this.randomSuffix();
      while (this.objectsOf(type).has(objectKey(namespace, name)));
    }
    if (this.objectsOf(type).has(objectKey(namespace, name))) throw alreadyExists(type, name);
    object.apiVersion = apiVersionOf(type);
    object.kind = type.kind;
    const { deletionTimestamp: _ts, deletionGracePeriodSeconds: _grace, ...rest } = meta;
    object.metadata = {
      ...rest,
      name,
      ...(type.namespaced ? { namespace } : {}),
      uid: this.newUid(),
      creationTimestamp: formatKubeTime(new Date(this.clock.now())),
      generation: 1,
    };
    if (!type.namespaced) delete object.metadata.namespace;
    if (!options.keepStatus) {
      const status = statusOnCreate(type, object.status);
      if (status === undefined) delete object.status;
      else object.status = status;
    }
    return this.commit(type, 'ADDED', object);
  }

  /** Creates an object keeping the `.status` it carries: test setup for "a controller already reported this". */
  seed(resource: ResourceRef, input: object, options: WriteOptions = {}): KubeObject {
    return this.create(resource, input, { ...options, keepStatus: true });
  }

  /** The object, or undefined; `namespace` defaults to `default` for namespaced resources. */
  find(resource: ResourceRef, name: string, namespace?: string): KubeObject | undefined {
    const type = this.resolve(resource);
    const object = this.objectsOf(type).get(objectKey(type.namespaced ? (namespace ?? 'default') : '', name));
    return object && cloneObject(object);
  }

  /** The object; 404 {@link KubeApiError} when absent. */
  get(resource: ResourceRef, name: string, namespace?: string): KubeObject {
    const object = this.find(resource, name, namespace);
    if (!object) throw notFound(this.resolve(resource), name);
    return object;
  }

  /**
   * Lists objects sorted by namespace and name (etcd key order). With `limit`, the first page
   * snapshots the whole result so that continued pages are consistent, as on the real server;
   * {@link compactHistory} expires the snapshots (410 on continue).
   */
  list(resource: ResourceRef, options: ListOptions = {}): ListResult {
    const type = this.resolve(resource);
    let resourceVersion: string;
    let items: readonly KubeObject[];
    let offset = 0;
    const selecting = Boolean(options.labelSelector || options.fieldSelector);
    let id: number | undefined;
    if (options.continue) {
      const resumed = this.snapshots.resume(options.continue);
      ({ resourceVersion, items } = resumed.snapshot);
      ({ id, offset } = resumed);
    } else {
      resourceVersion = this.resourceVersion;
      const matches = this.matcher(type, options);
      items = [...this.objectsOf(type).entries()]
        .filter(([, object]) => matches(object))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, object]) => object);
    }
    const limit = options.limit && options.limit > 0 ? options.limit : Number.POSITIVE_INFINITY;
    const page = items.slice(offset, offset + limit).map((o) => cloneObject(o));
    const remaining = items.length - offset - page.length;
    if (remaining <= 0) return { items: page, resourceVersion };
    id ??= this.snapshots.keep({ resourceVersion, items });
    const next = this.snapshots.token(id, resourceVersion, offset + page.length);
    return selecting
      ? { items: page, resourceVersion, continue: next }
      : { items: page, resourceVersion, continue: next, remainingItemCount: remaining };
  }

  /**
   * Calls `visit` with every object `options` selects, without copying: for read-only scans
   * over many objects (the visitor must neither mutate nor keep them).
   */
  scan(
    resource: ResourceRef,
    options: Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>,
    visit: (object: Readonly<KubeObject>) => void,
  ): void {
    const type = this.resolve(resource);
    const matches = this.matcher(type, options);
    for (const object of this.objectsOf(type).values()) if (matches(object)) visit(object);
  }

  /**
   * Replaces an object as `PUT` does: 409 when metadata.resourceVersion is stale, 422 when a
   * custom resource omits it; system metadata is kept; with a status subresource the main
   * update keeps the old `.status` and a `status` update changes nothing else. Removing the last
   * finalizer of an object being deleted deletes it once its grace period is 0 ({@link deletesOnUpdate}).
   */
  update(resource: ResourceRef, input: object, options: WriteOptions = {}): KubeObject {
    const type = this.resolve(resource);
    const object = toKubeObject(input);
    const namespace = this.namespaceFor(type, object, options.namespace);
    const name = object.metadata.name ?? '';
    const current = this.objectsOf(type).get(objectKey(namespace, name));
    if (!current) throw notFound(type, name);
    const given = object.metadata.resourceVersion;
    if (given === undefined || given === '') {
      if (type.custom) {
        throw invalid(type, name, [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ]);
      }
    } else if (given !== current.metadata.resourceVersion) throw conflict(type, name);
    return this.write(type, current, object, options.subresource);
  }

  /** {@link update} of the status subresource. */
  updateStatus(
    resource: ResourceRef,
    input: object,
    options: Omit<WriteOptions, 'subresource'> = {},
  ): KubeObject {
    return this.update(resource, input, { ...options, subresource: 'status' });
  }

  /**
   * Patches an object as `PATCH` does with `contentType` (merge, strategic merge, JSON patch).
   * A resourceVersion the patch leaves different from the current one is a precondition (409);
   * a failed JSON-patch `test` is 422, a malformed patch 400; strategic merge on a custom
   * resource is 415 (server-side apply is {@link apply}).
   */
  patch(
    resource: ResourceRef,
    name: string,
    patch: unknown,
    contentType: string,
    options: WriteOptions = {},
  ): KubeObject {
    const type = this.resolve(resource);
    const namespace = type.namespaced ? (options.namespace ?? 'default') : '';
    const current = this.objectsOf(type).get(objectKey(namespace, name));
    if (!current) throw notFound(type, name);
    const result = patchedObject(type, current, name, patch, contentType);
    if (result.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict(type, name);
    return this.write(type, current, result, options.subresource);
  }

  /**
   * Server-side apply (`PATCH` as `application/apply-patch+yaml`): creates the object when
   * absent, else merges the applied configuration and removes what the same field manager
   * applied before and no longer does (./server-side-apply.ts). The status of a resource with a
   * status subresource is left as it is.
   */
  apply(
    resource: ResourceRef,
    name: string,
    body: unknown,
    options: WriteOptions & ApplyOptions,
  ): { readonly created: boolean; readonly object: KubeObject } {
    const type = this.resolve(resource);
    const applied = checkApplyRequest(type, name, body, options);
    const namespace = type.namespaced ? (options.namespace ?? 'default') : '';
    const key = `${qualifiedName(type)}|${objectKey(namespace, name)}|${options.fieldManager}`;
    const current = this.objectsOf(type).get(objectKey(namespace, name));
    const previous = current ? this.appliedBy.get(key) : undefined;
    const merged = mergeApplied(type, current, previous, applied, options.force);
    const object = current
      ? this.write(type, current, merged)
      : this.create(type, merged, { namespace: options.namespace });
    this.appliedBy.set(key, cloneObject(applied));
    return { created: !current, object };
  }

  /**
   * Deletes an object as `DELETE` does ({@link planDeletion}): a pod is deleted gracefully — it
   * gets a deletionTimestamp at the end of its grace period (the request's
   * `gracePeriodSeconds`, else its `terminationGracePeriodSeconds`, 30 by default; 0 when it is
   * unscheduled or finished) and stays until a delete with grace 0 (the kubelet's, once its
   * containers stopped) — and a repeated delete may only shorten the grace. Any object with
   * finalizers stays, with a deletionTimestamp, until an update removes the last one. Returns the
   * object's last state.
   */
  delete(
    resource: ResourceRef,
    name: string,
    options: { namespace?: string; preconditions?: DeletePreconditions; gracePeriodSeconds?: number } = {},
  ): KubeObject {
    const type = this.resolve(resource);
    const namespace = type.namespaced ? (options.namespace ?? 'default') : '';
    const current = this.objectsOf(type).get(objectKey(namespace, name));
    if (!current) throw notFound(type, name);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid && uid !== current.metadata.uid) {
      throw conflict(
        type,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        type,
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    const plan = planDeletion(type, current, options.gracePeriodSeconds, this.clock.now());
    if (plan.kind === 'pending') return cloneObject(current);
    if (plan.kind === 'mark') return this.commit(type, 'MODIFIED', plan.next, current);
    if (!plan.marked) return this.commit(type, 'DELETED', cloneObject(current), current);
    const marked = this.commit(type, 'MODIFIED', plan.marked, current);
    return this.commit(type, 'DELETED', marked, this.objectsOf(type).get(objectKey(namespace, name)));
  }

  /**
   * Forgets the watch history and list snapshots, as an etcd compaction does: a watch from any
   * resourceVersion before now gets 410 Expired, and so does a pending continue token.
   */
  compactHistory(): void {
    this.compactedThrough = this.revision;
    this.history = [];
    this.snapshots.clear();
  }

  /** Changes after `resourceVersion`, oldest first; 410 {@link KubeApiError} when already forgotten. */
  eventsSince(resourceVersion: number): StoredEvent[] {
    if (resourceVersion < this.compactedThrough) {
      throw expired(`too old resource version: ${resourceVersion} (${this.compactedThrough})`);
    }
    return this.history.filter((event) => event.resourceVersion > resourceVersion);
  }

  /**
   * Calls `listener` after every change, in resourceVersion order. Changes made by a listener
   * are delivered after the current one reached every listener. Returns the unsubscribe function.
   */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Compiles list filters for `type` (400 for a bad selector or an unsupported field). */
  matcher(
    type: ResourceType,
    options: Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>,
  ): (object: KubeObject) => boolean {
    let labels: LabelRequirement[];
    let fields: FieldRequirement[];
    try {
      labels = parseLabelSelector(options.labelSelector ?? '');
      fields = parseFieldSelector(options.fieldSelector ?? '');
    } catch (error) {
      validationSelectorError(error);
    }
    const supported = new Set(['metadata.name', 'metadata.namespace', ...(type.selectableFields ?? [])]);
    const unsupported = fields.find((f) => !supported.has(f.field));
    if (unsupported) throw badRequest(`field label not supported: ${unsupported.field}`);
    const namespace = type.namespaced ? options.namespace : undefined;
    return (object) =>
      (namespace === undefined || object.metadata.namespace === namespace) &&
      labelsMatch(labels, object.metadata.labels) &&
      fieldsMatch(fields, object);
  }

  private write(
    type: ResourceType,
    current: KubeObject,
    desired: KubeObject,
    subresource?: 'status',
  ): KubeObject {
    let next: KubeObject;
    if (subresource === 'status') {
      if (!type.statusSubresource) throw notFound(type, current.metadata.name ?? '');
      next = cloneObject(current);
      if (desired.status === undefined) delete next.status;
      else next.status = cloneObject(desired.status);
    } else {
      next = cloneObject(desired);
      const keep = current.metadata;
      next.metadata = {
        ...next.metadata,
        name: keep.name,
        uid: keep.uid,
        creationTimestamp: keep.creationTimestamp,
      };
      if (type.namespaced) next.metadata.namespace = keep.namespace;
      else delete next.metadata.namespace;
      delete next.metadata.deletionTimestamp;
      delete next.metadata.deletionGracePeriodSeconds;
      if (keep.deletionTimestamp) {
        next.metadata.deletionTimestamp = keep.deletionTimestamp;
        next.metadata.deletionGracePeriodSeconds = keep.deletionGracePeriodSeconds;
        const added = (next.metadata.finalizers ?? []).filter((f) => !(keep.finalizers ?? []).includes(f));
        if (added.length > 0) {
          throw invalid(type, keep.name ?? '', [
            {
              reason: 'FieldValueForbidden',
              message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
              field: 'metadata.finalizers',
            },
          ]);
        }
      }
      if (type.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = cloneObject(current.status);
      }
    }
    next.apiVersion = apiVersionOf(type);
    next.kind = type.kind;
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    next.metadata.generation = current.metadata.generation;
    if (next.metadata.generation === undefined) delete next.metadata.generation;
    if (next.metadata.finalizers?.length === 0) delete next.metadata.finalizers;
    if (jsonEqual(next, current)) return cloneObject(current);
    if (specChanged(current, next)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    if (deletesOnUpdate(current, next)) return this.commit(type, 'DELETED', next, current);
    return this.commit(type, 'MODIFIED', next, current);
  }

  private commit(
    type: ResourceType,
    eventType: StoredEvent['type'],
    written: KubeObject,
    previous?: KubeObject,
  ): KubeObject {
    this.revision += 1;
    written.metadata.resourceVersion = String(this.revision);
    // A custom resource is unstructured JSON to the real API server (map[string]interface{}),
    // which encoding/json writes with every map's keys sorted: what clients read back is never
    // in the order they wrote it. Built-in kinds keep their Go structs' field order.
    const object = type.custom ? sortedKeys(written) : written;
    const key = objectKey(object.metadata.namespace ?? '', object.metadata.name ?? '');
    if (eventType === 'DELETED') this.objectsOf(type).delete(key);
    else this.objectsOf(type).set(key, object);
    const event: StoredEvent = {
      resourceVersion: this.revision,
      type: eventType,
      resource: type,
      object: cloneObject(object),
      ...(previous ? { previous: cloneObject(previous) } : {}),
    };
    this.history.push(event);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedThrough = dropped[dropped.length - 1].resourceVersion;
    }
    this.pending.push(event);
    this.deliver();
    return cloneObject(object);
  }

  private deliver(): void {
    if (this.notifying) return;
    this.notifying = true;
    try {
      for (let event = this.pending.shift(); event; event = this.pending.shift()) {
        for (const listener of [...this.listeners]) listener(event);
      }
    } finally {
      this.notifying = false;
    }
  }

  private objectsOf(type: ResourceType): Map<string, KubeObject> {
    const objects = this.objects.get(type);
    if (!objects) throw new Error(`resource ${type.plural}.${type.group} is not served by this store`);
    return objects;
  }

  private namespaceFor(type: ResourceType, object: KubeObject, requested: string | undefined): string {
    if (!type.namespaced) return '';
    const own = object.metadata.namespace;
    if (requested !== undefined && own !== undefined && own !== '' && own !== requested) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    return requested ?? (own || 'default');
  }

  private randomSuffix(): string {
    let suffix = '';
    for (let i = 0; i < 5; i++)
      suffix += generateNameAlphabet[Math.floor(this.random() * generateNameAlphabet.length)];
    return suffix;
  }
}
