import type { UnavailableOffering } from '../core/catalog/unavailable-offerings';
import type { ClusterLeasePort, LeaseOutcome, UnavailableOfferingsStore } from '../core/ports/cluster-lease';
import type { Clock } from '../core/ports/time';
import { apiCode, kubeError } from './api-errors';
import type { KubeApi } from './kube-api';
import { LEASES } from './kube-resources';
import type { LeaseJson, LeaseLocation } from './lease-object';
import { createLease, microTime, parseKubeTime, readLease, replaceLease } from './lease-object';
import { loadUnavailableOfferings, saveUnavailableOfferings } from './lease-unavailable-offerings';
import { retryOnConflict } from './retry-on-conflict';

/**
 * Namespace of the Lease when none is configured: podlift's own, which manifests/ creates and
 * where the functions' RBAC Role allows Leases (Karpenter likewise uses the namespace it runs in).
 */
export const DEFAULT_LEASE_NAMESPACE = 'podlift';
/** Name of the per-cluster Lease when none is configured. */
export const DEFAULT_LEASE_NAME = 'podlift';

/** Options of {@link ClusterLease}. */
export interface ClusterLeaseOptions {
  /** @default DEFAULT_LEASE_NAMESPACE (`podlift`) */
  readonly namespace?: string;
  /** @default DEFAULT_LEASE_NAME (`podlift`) */
  readonly name?: string;
}

/**
 * The per-cluster coordination.k8s.io/v1 Lease that keeps two podlift functions from deciding
 * at once, with client-go leader election's rules: the holder renews, anybody may take over once
 * `renewTime + leaseDurationSeconds` has passed (on the injected clock), and every write is
 * conditional on the resourceVersion read, so of two contenders exactly one wins. The Lease
 * also carries the unavailable-offerings set (see lease-unavailable-offerings.ts): one object
 * implements both of core's Lease ports.
 */
export class ClusterLease implements ClusterLeasePort, UnavailableOfferingsStore {
  /** Where the Lease lives. */
  readonly location: LeaseLocation;

  constructor(
    private readonly api: KubeApi,
    private readonly clock: Clock,
    options: ClusterLeaseOptions = {},
  ) {
    this.location = {
      namespace: options.namespace ?? DEFAULT_LEASE_NAMESPACE,
      name: options.name ?? DEFAULT_LEASE_NAME,
    };
  }

  /**
   * Creates the Lease held by `holder`, renews it when `holder` already holds it, or takes it
   * over when it is free or expired; otherwise reports the current holder. A 409 means another
   * writer changed the Lease since it was read: it is read again and judged afresh, so a
   * contender that took it over makes this call lose cleanly (`acquired: false`), while a mere
   * annotation update does not cost the holder its hold.
   */
  async acquire(holder: string, durationSeconds: number): Promise<LeaseOutcome> {
    const { namespace, name } = this.location;
    const doing = `acquiring Lease ${namespace}/${name} for ${holder}`;
    try {
      const lease = await retryOnConflict<LeaseJson | undefined, LeaseJson>(
        () => readLease(this.api, this.location),
        (current) => this.claim(current, holder, durationSeconds),
        (next, current) =>
          current ? replaceLease(this.api, this.location, next) : createLease(this.api, this.location, next),
        { doing },
      );
      return outcome(lease, holder);
    } catch (error) {
      throw kubeError(error, doing, `Lease ${namespace}/${name}`, LEASES);
    }
  }

  /**
   * Gives the Lease up if `holder` holds it (the holder is cleared and the duration set to 1 s,
   * as client-go's ReleaseOnCancel does), so the next contender need not wait for it to expire.
   * Returns whether it was released; false when `holder` did not hold it.
   */
  async release(holder: string): Promise<boolean> {
    const { namespace, name } = this.location;
    const doing = `releasing Lease ${namespace}/${name} held by ${holder}`;
    let released = false;
    try {
      await retryOnConflict<LeaseJson | undefined, LeaseJson>(
        () => readLease(this.api, this.location),
        (current) => {
          if (!current || current.spec?.holderIdentity !== holder) return undefined;
          const { holderIdentity: _holder, ...spec } = current.spec;
          const now = microTime(this.clock.now());
          return { ...current, spec: { ...spec, leaseDurationSeconds: 1, renewTime: now, acquireTime: now } };
        },
        async (next) => {
          const written = await replaceLease(this.api, this.location, next);
          released = true;
          return written;
        },
        { doing },
      );
      return released;
    } catch (error) {
      if (apiCode(error) === 404) return false;
      throw kubeError(error, doing, `Lease ${namespace}/${name}`, LEASES);
    }
  }

  /** The unexpired unavailable offerings stored on the Lease (none when it does not exist). */
  loadUnavailableOfferings(): Promise<UnavailableOffering[]> {
    return loadUnavailableOfferings(this.api, this.clock, this.location);
  }

  /**
   * Merges `entries` into the unavailable offerings stored on the Lease (creating it when
   * absent); a concurrent writer's entries are kept. Returns the set as stored.
   */
  saveUnavailableOfferings(entries: readonly UnavailableOffering[]): Promise<UnavailableOffering[]> {
    return saveUnavailableOfferings(this.api, this.clock, this.location, entries);
  }

  /** The Lease `holder` should write, or undefined when another holder's hold is still valid. */
  private claim(
    current: LeaseJson | undefined,
    holder: string,
    durationSeconds: number,
  ): LeaseJson | undefined {
    const now = this.clock.now();
    const spec = current?.spec ?? {};
    const transitions = spec.leaseTransitions ?? 0;
    if (current && spec.holderIdentity === holder) {
      return {
        ...current,
        spec: { ...spec, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) },
      };
    }
    const expiresAt = leaseExpiry(spec);
    const free = !spec.holderIdentity || expiresAt === undefined || expiresAt <= now;
    if (current && !free) return undefined;
    return {
      ...(current ?? { metadata: {} }),
      spec: {
        holderIdentity: holder,
        leaseDurationSeconds: durationSeconds,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        // As client-go: the creator starts at 0, every later change of holder counts one.
        leaseTransitions: current ? transitions + 1 : 0,
      },
    };
  }
}

/** When the current hold lapses: renewTime (else acquireTime) + leaseDurationSeconds. */
function leaseExpiry(spec: LeaseJson['spec']): number | undefined {
  const renewed = parseKubeTime(spec?.renewTime) ?? parseKubeTime(spec?.acquireTime);
  if (renewed === undefined || spec?.leaseDurationSeconds === undefined) return undefined;
  return renewed + spec.leaseDurationSeconds * 1000;
}

function outcome(lease: LeaseJson | undefined, holder: string): LeaseOutcome {
  const spec = lease?.spec ?? {};
  const expiresAt = leaseExpiry(spec);
  return {
    acquired: spec.holderIdentity === holder,
    ...(spec.holderIdentity ? { holder: spec.holderIdentity } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    transitions: spec.leaseTransitions ?? 0,
  };
}
