import { isApiNotFound, kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { LEASES } from './kube-resources';
import type { KubeObjectJson } from './object-access';

/**
 * Reading and writing the coordination.k8s.io/v1 Lease as JSON. The typed CoordinationV1Api
 * would serialise acquireTime/renewTime with `Date#toISOString()` (milliseconds), which the API
 * server rejects: they are metav1.MicroTime, parsed with exactly six fractional digits
 * (kubernetes-client/javascript#828). CustomObjectsApi addresses any group's resources and
 * sends our JSON as is.
 */

/** Where the Lease lives. */
export interface LeaseLocation {
  readonly namespace: string;
  readonly name: string;
}

/** spec of a Lease, as stored. */
export interface LeaseSpecJson {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  /** metav1.MicroTime. */
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

/** A Lease as the API's JSON. */
export interface LeaseJson extends KubeObjectJson {
  readonly spec?: LeaseSpecJson;
}

/** The Lease collection, as CustomObjectsApi addresses it. */
const LEASE_COLLECTION = { group: LEASES.group, version: LEASES.version, plural: LEASES.plural };

/** The Lease, or undefined when it does not exist yet. */
export async function readLease(api: KubeApi, at: LeaseLocation): Promise<LeaseJson | undefined> {
  const custom = await api.custom();
  try {
    return (await custom.getNamespacedCustomObject({ ...LEASE_COLLECTION, ...at })) as LeaseJson;
  } catch (error) {
    if (isApiNotFound(error)) return undefined;
    throw kubeError(
      error,
      `reading Lease ${at.namespace}/${at.name}`,
      `Lease ${at.namespace}/${at.name}`,
      LEASES,
    );
  }
}

/** Creates the Lease (409 AlreadyExists when someone else just did: the caller re-reads). */
export async function createLease(api: KubeApi, at: LeaseLocation, lease: LeaseJson): Promise<LeaseJson> {
  const custom = await api.custom();
  const body = {
    ...lease,
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { ...lease.metadata, name: at.name, namespace: at.namespace },
  };
  return (await custom.createNamespacedCustomObject({
    ...LEASE_COLLECTION,
    namespace: at.namespace,
    body,
  })) as LeaseJson;
}

/** Replaces the Lease; its metadata.resourceVersion makes it conditional (409 when stale). */
export async function replaceLease(api: KubeApi, at: LeaseLocation, lease: LeaseJson): Promise<LeaseJson> {
  const custom = await api.custom();
  return (await custom.replaceNamespacedCustomObject({
    ...LEASE_COLLECTION,
    ...at,
    body: lease,
  })) as LeaseJson;
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits (`2026-11-21T10:00:00.123000Z`). */
export function microTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 23)}000Z`;
}

/** Epoch ms of an RFC 3339 time with any number of fractional digits; undefined when unparsable. */
export function parseKubeTime(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!m) return undefined;
  const ms = m[2] ? `${m[2]}00`.slice(0, 3) : '000';
  const t = Date.parse(`${m[1]}.${ms}${m[3]}`);
  return Number.isNaN(t) ? undefined : t;
}
