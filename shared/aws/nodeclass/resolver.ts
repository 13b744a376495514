import type { EC2Client } from '@aws-sdk/client-ec2';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { ClusterInfo } from '../../core/model/cluster-info';
import type { EC2NodeClass } from '../../core/model/ec2nodeclass';
import {
  buildNodeClassConditions,
  conditionsOfStatus,
  type DependentOutcome,
  type NodeClassDependentConditionType,
} from '../../core/model/ec2nodeclass-conditions';
import type {
  EC2NodeClassStatus,
  ResolvedAmi,
  ResolvedCapacityReservation,
  ResolvedPlacementGroup,
  ResolvedSecurityGroup,
  ResolvedSubnet,
} from '../../core/model/ec2nodeclass-status';
import type { NodeClassResolverPort } from '../../core/ports/cloud';
import type { Clock } from '../../core/ports/time';
import { TtlCache } from '../ttl-cache';
import { resolveAmis } from './amis';
import { resolveCapacityReservations } from './capacity-reservations';
import { resolveInstanceProfile } from './instance-profile';
import type { PartOutcome } from './part-outcome';
import { resolvePlacementGroup } from './placement-group';
import { resolveSecurityGroups } from './security-groups';
import { resolveSubnets } from './subnets';

/** How long resolutions are reused. */
export interface NodeClassCacheTtls {
  /** @default 60 s (Karpenter's DefaultTTL for its subnet cache) */
  readonly subnetsMs?: number;
  /** @default 60 s (Karpenter's DefaultTTL for its security group cache) */
  readonly securityGroupsMs?: number;
  /** @default 60 s (Karpenter's DefaultTTL for its AMI cache) */
  readonly amisMs?: number;
  /** @default 60 s (Karpenter's capacity reservation cache, pkg/cache DefaultTTL) */
  readonly capacityReservationsMs?: number;
  /** @default 60 s (Karpenter's placement group cache, pkg/cache DefaultTTL) */
  readonly placementGroupsMs?: number;
  /** A profile found or created is trusted this long. @default 15 min (Karpenter's InstanceProfileTTL) */
  readonly instanceProfileMs?: number;
}

/** Options of `EC2NodeClassResolver`. */
export interface EC2NodeClassResolverOptions {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly iam: IAMClient;
  readonly clock: Clock;
  /** The cluster: its name (profile names, tags) and Kubernetes version (AMI aliases). */
  readonly cluster: Pick<ClusterInfo, 'name' | 'kubernetesVersion'>;
  /** The region the clients talk to, e.g. "us-east-1" (instance profile names, paths and tags). */
  readonly region: string;
  readonly ttls?: NodeClassCacheTtls;
}

const DEFAULT_TTLS: Required<NodeClassCacheTtls> = {
  subnetsMs: 60_000,
  securityGroupsMs: 60_000,
  amisMs: 60_000,
  placementGroupsMs: 60_000,
  capacityReservationsMs: 60_000,
  instanceProfileMs: 15 * 60_000,
};

/**
 * Resolves an EC2NodeClass's selectors to concrete subnets, security groups, AMIs and instance
 * profile, with Karpenter's status conditions, through the real EC2, SSM and IAM APIs.
 *
 * Each part is cached for a short TTL on the injected clock, keyed by exactly the spec fields
 * (and cluster facts) it depends on, so a changed spec is resolved afresh at once and node
 * classes with identical selectors share lookups. Concurrent resolves share in-flight lookups.
 * A part that throws (throttling, 5xx: CloudError with `retryable`) fails the whole resolve so
 * the caller retries; the status last written stays in place, as in Karpenter.
 */
export class EC2NodeClassResolver implements NodeClassResolverPort {
  private readonly ttls: Required<NodeClassCacheTtls>;
  private readonly subnets: TtlCache<PartOutcome<ResolvedSubnet[]>>;
  private readonly securityGroups: TtlCache<PartOutcome<ResolvedSecurityGroup[]>>;
  private readonly amis: TtlCache<PartOutcome<ResolvedAmi[]>>;
  private readonly profiles: TtlCache<PartOutcome<string>>;
  private readonly placementGroups: TtlCache<PartOutcome<ResolvedPlacementGroup>>;
  private readonly reservations: TtlCache<PartOutcome<ResolvedCapacityReservation[]>>;
  /**
   * Launches into each reservation since it was last described, by id (Karpenter's
   * capacityreservation availabilityCache: `syncAvailability` on every describe, `MarkLaunched`).
   */
  private readonly launchedSince = new Map<string, number>();

  constructor(private readonly options: EC2NodeClassResolverOptions) {
    this.ttls = { ...DEFAULT_TTLS, ...options.ttls };
    this.subnets = new TtlCache();
    this.securityGroups = new TtlCache();
    this.amis = new TtlCache();
    this.profiles = new TtlCache();
    this.placementGroups = new TtlCache();
    this.reservations = new TtlCache();
  }

  /** Resolves every part and builds the status; see the class comment for caching and errors. */
  async resolve(nodeClass: EC2NodeClass): Promise<EC2NodeClassStatus> {
    const { ec2, ssm, cluster } = this.options;
    const name = nodeClass.name;
    const now = this.options.clock.now();
    const [subnets, securityGroups, amis, instanceProfile, [placementGroup, reservations]] =
      await Promise.all([
        this.subnets.getOrLoad(stableKey(nodeClass.subnetSelectorTerms), now, this.ttls.subnetsMs, () =>
          resolveSubnets(ec2, nodeClass.subnetSelectorTerms, name),
        ),
        this.securityGroups.getOrLoad(
          stableKey(nodeClass.securityGroupSelectorTerms),
          now,
          this.ttls.securityGroupsMs,
          () => resolveSecurityGroups(ec2, nodeClass.securityGroupSelectorTerms, name),
        ),
        this.amis.getOrLoad(
          stableKey({ terms: nodeClass.amiSelectorTerms, k8s: cluster.kubernetesVersion }),
          now,
          this.ttls.amisMs,
          () =>
            resolveAmis(ec2, ssm, {
              terms: nodeClass.amiSelectorTerms,
              kubernetesVersion: cluster.kubernetesVersion,
              nodeClassName: name,
              now,
            }),
        ),
        this.instanceProfile(nodeClass, now),
        this.optionalParts(nodeClass, now),
      ]);
    const outcomes: DependentOutcome[] = [
      dependent('SubnetsReady', subnets),
      dependent('SecurityGroupsReady', securityGroups),
      dependent('AMIsReady', amis),
      dependent('InstanceProfileReady', instanceProfile),
      ...(placementGroup === undefined ? [] : [dependent('PlacementGroupReady', placementGroup)]),
      ...(reservations === undefined ? [] : [dependent('CapacityReservationsReady', reservations)]),
    ];
    return {
      subnets: subnets.ok ? subnets.value : [],
      securityGroups: securityGroups.ok ? securityGroups.value : [],
      amis: amis.ok ? amis.value : [],
      ...(instanceProfile.ok ? { instanceProfile: instanceProfile.value } : {}),
      ...(placementGroup?.ok ? { placementGroup: placementGroup.value } : {}),
      ...capacityReservationsStatus(reservations, nodeClass.status),
      conditions: buildNodeClassConditions(
        outcomes,
        conditionsOfStatus(nodeClass.status),
        this.options.clock.now(),
      ),
    };
  }

  /**
   * The parts only some node classes have: the placement group of spec.placementGroupSelector
   * and the capacity reservations of capacityReservationSelectorTerms, each undefined without
   * its selector (no EC2 call, no condition).
   */
  private optionalParts(
    nodeClass: EC2NodeClass,
    now: number,
  ): Promise<
    [PartOutcome<ResolvedPlacementGroup> | undefined, PartOutcome<ResolvedCapacityReservation[]> | undefined]
  > {
    const { ec2 } = this.options;
    const selector = nodeClass.placementGroupSelector;
    const terms = nodeClass.capacityReservationSelectorTerms;
    return Promise.all([
      selector === undefined
        ? undefined
        : this.placementGroups.getOrLoad(stableKey(selector), now, this.ttls.placementGroupsMs, () =>
            resolvePlacementGroup(ec2, selector, nodeClass.name),
          ),
      terms.length === 0
        ? undefined
        : this.reservations
            .getOrLoad(stableKey(terms), now, this.ttls.capacityReservationsMs, async () => {
              const fresh = await resolveCapacityReservations(ec2, terms, nodeClass.name, now);
              // EC2's count includes every launch so far: start counting afresh.
              if (fresh.ok) for (const r of fresh.value) this.launchedSince.set(r.id, 0);
              return fresh;
            })
            .then((outcome) => this.lessLaunched(outcome)),
    ]);
  }

  /** Counts one launch into `reservationId` until its reservation is next described. */
  markLaunched(reservationId: string): void {
    const launched = this.launchedSince.get(reservationId);
    if (launched !== undefined) this.launchedSince.set(reservationId, launched + 1);
  }

  /** The reservations with the launches since they were described taken off their free count. */
  private lessLaunched(
    outcome: PartOutcome<ResolvedCapacityReservation[]>,
  ): PartOutcome<ResolvedCapacityReservation[]> {
    if (!outcome.ok) return outcome;
    return {
      ...outcome,
      value: outcome.value.map((r) => ({
        ...r,
        availableInstanceCount: Math.max(0, r.availableInstanceCount - (this.launchedSince.get(r.id) ?? 0)),
      })),
    };
  }

  /**
   * The instance profile part, keyed by everything it depends on, the profile in status
   * included: a role change is seen at once, and a profile kept from status is re-read when the
   * status names another.
   */
  private instanceProfile(nodeClass: EC2NodeClass, now: number): Promise<PartOutcome<string>> {
    const { iam, cluster, region } = this.options;
    const current = nodeClass.status?.instanceProfile;
    const currentProfile = typeof current === 'string' && current !== '' ? current : undefined;
    return this.profiles.getOrLoad(
      stableKey({
        name: nodeClass.name,
        uid: nodeClass.uid,
        role: nodeClass.role,
        instanceProfile: nodeClass.instanceProfile,
        current: currentProfile,
        tags: nodeClass.tags,
        cluster: cluster.name,
        region,
      }),
      now,
      this.ttls.instanceProfileMs,
      () =>
        resolveInstanceProfile(iam, {
          clusterName: cluster.name,
          region,
          nodeClassName: nodeClass.name,
          ...(nodeClass.uid === undefined ? {} : { nodeClassUid: nodeClass.uid }),
          ...(nodeClass.role === undefined ? {} : { role: nodeClass.role }),
          ...(nodeClass.instanceProfile === undefined ? {} : { instanceProfile: nodeClass.instanceProfile }),
          ...(currentProfile === undefined ? {} : { currentProfile }),
          tags: nodeClass.tags,
        }),
      // A missing profile or role may be fixed any minute: only success is trusted for long.
      (outcome) => outcome.ok,
    );
  }
}

/**
 * status.capacityReservations: what the terms resolved to, an empty list when they no longer
 * resolve or were removed while the status still lists some (so the merge patch clears it), and
 * nothing otherwise, so node classes without terms keep Karpenter's status without the field.
 */
function capacityReservationsStatus(
  outcome: PartOutcome<ResolvedCapacityReservation[]> | undefined,
  current: EC2NodeClass['status'],
): Pick<EC2NodeClassStatus, 'capacityReservations'> {
  if (outcome?.ok) return { capacityReservations: outcome.value };
  const listed = current?.capacityReservations;
  return outcome !== undefined || (Array.isArray(listed) && listed.length > 0)
    ? { capacityReservations: [] }
    : {};
}

function dependent(type: NodeClassDependentConditionType, outcome: PartOutcome<unknown>): DependentOutcome {
  return outcome.ok
    ? { type, status: 'True' }
    : { type, status: 'False', reason: outcome.reason, message: outcome.message };
}

/** JSON with object keys sorted, so equal specs give equal cache keys whatever their key order. */
function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
