import * as z from 'zod';
import { offeringKey } from '../core/catalog/instance-type';
import type { UnavailableOffering } from '../core/catalog/unavailable-offerings';
import { UnavailableOfferings } from '../core/catalog/unavailable-offerings';
import type { Clock } from '../core/ports/time';
import { kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { LEASES } from './kube-resources';
import type { LeaseJson, LeaseLocation } from './lease-object';
import { createLease, readLease, replaceLease } from './lease-object';
import { retryOnConflict } from './retry-on-conflict';

/**
 * The unavailable-offerings set (offerings EC2 recently refused or reclaimed) must outlive one
 * Lambda invocation. It is kept as a JSON annotation on the cluster's Lease: no extra datastore,
 * and the Lease's resourceVersion gives the same optimistic concurrency as everything else.
 */

/** Annotation on the Lease holding a JSON array of UnavailableOffering (`until` in epoch ms). */
export const UNAVAILABLE_OFFERINGS_ANNOTATION = 'podlift.dev/unavailable-offerings';

const entrySchema = z.object({
  instanceType: z.string().min(1),
  zone: z.string().min(1),
  capacityType: z.enum(['spot', 'on-demand', 'reserved']),
  until: z.number(),
  reason: z.string(),
});

/**
 * The entries of an annotation value. An entry that does not parse is dropped (and so is a
 * value that is not a JSON array): a damaged cache must never stop provisioning; the worst
 * case is one more refused launch that marks the offering again.
 */
export function parseUnavailableOfferings(text: string | undefined): UnavailableOffering[] {
  if (!text) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const entries: UnavailableOffering[] = [];
  for (const item of value) {
    const parsed = entrySchema.safeParse(item);
    if (parsed.success) entries.push(parsed.data);
  }
  return entries;
}

/** The unexpired entries stored on the Lease; none when the Lease does not exist. */
export async function loadUnavailableOfferings(
  api: KubeApi,
  clock: Clock,
  at: LeaseLocation,
): Promise<UnavailableOffering[]> {
  const lease = await readLease(api, at);
  return merge(
    clock,
    parseUnavailableOfferings(lease?.metadata?.annotations?.[UNAVAILABLE_OFFERINGS_ANNOTATION]),
  );
}

/**
 * Stores `entries` merged with what the Lease already holds (expired entries dropped, the later
 * expiry wins per offering), creating the Lease without a holder when it does not exist. The
 * write is conditional on the resourceVersion read; on 409 the Lease is read again and merged
 * again, so entries another function saved meanwhile are kept. Returns what is stored.
 */
export async function saveUnavailableOfferings(
  api: KubeApi,
  clock: Clock,
  at: LeaseLocation,
  entries: readonly UnavailableOffering[],
): Promise<UnavailableOffering[]> {
  const doing = `saving unavailable offerings on Lease ${at.namespace}/${at.name}`;
  try {
    const lease = await retryOnConflict<LeaseJson | undefined, LeaseJson>(
      () => readLease(api, at),
      (current) => {
        const stored = current?.metadata?.annotations?.[UNAVAILABLE_OFFERINGS_ANNOTATION];
        const text = JSON.stringify(merge(clock, [...parseUnavailableOfferings(stored), ...entries]));
        if (current && text === stored) return undefined;
        const metadata = current?.metadata ?? {};
        return {
          ...(current ?? { spec: {} }),
          metadata: {
            ...metadata,
            annotations: { ...metadata.annotations, [UNAVAILABLE_OFFERINGS_ANNOTATION]: text },
          },
        };
      },
      (next, current) => (current ? replaceLease(api, at, next) : createLease(api, at, next)),
      { doing },
    );
    return merge(
      clock,
      parseUnavailableOfferings(lease?.metadata?.annotations?.[UNAVAILABLE_OFFERINGS_ANNOTATION]),
    );
  } catch (error) {
    throw kubeError(error, doing, `Lease ${at.namespace}/${at.name}`, LEASES);
  }
}

/** Unexpired entries, later expiry winning per offering, in a stable order (offering key). */
function merge(clock: Clock, entries: readonly UnavailableOffering[]): UnavailableOffering[] {
  const set = new UnavailableOfferings(clock);
  set.restore(entries);
  const key = (e: UnavailableOffering) => offeringKey(e.instanceType, e.zone, e.capacityType);
  return set.list().sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
