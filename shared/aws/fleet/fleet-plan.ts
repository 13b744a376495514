import type { InstanceType, InstanceTypeOption, Offering } from '../../core/catalog/instance-type';
import { isOfferingUnavailable } from '../../core/catalog/unavailable-offerings';
import type { CapacityType } from '../../core/model/capacity-type';
import type { ResolvedSubnet } from '../../core/model/ec2nodeclass-status';
import type { RefusedOffering } from '../../core/model/errors';
import { LABEL_CAPACITY_RESERVATION_ID, LABEL_CAPACITY_TYPE, LABEL_ZONE } from '../../core/model/labels';
import type { NodeClaim } from '../../core/model/nodeclaim';
import { type Requirement, Requirements } from '../../core/model/requirements';
import { PODS } from '../../core/model/resources';
import type { LaunchReservation } from '../../core/ports/cloud';
import type { LaunchTemplateRef } from '../../core/ports/launch-templates';
import { applyLaunchFilters } from './launch-filters';

/**
 * Which launch templates, instance types, subnets and capacity type one CreateFleet call for a
 * NodeClaim uses: Karpenter's instance provider (`getCapacityType`, `getOverrides`,
 * `ZonalSubnetsForLaunch`) as a pure function, so it is testable without EC2.
 */

/** Instance types per CreateFleet call (Karpenter's MaxInstanceTypes). */
export const MAX_INSTANCE_TYPES = 60;
/**
 * Overrides per CreateFleet call, across launch templates. EC2 documents 300 for `request` and
 * `maintain` fleets and no other figure for `instant`, so podlift keeps every fleet within it.
 */
export const MAX_FLEET_OVERRIDES = 300;
/** LaunchTemplateConfigs per CreateFleet call (CreateFleet's documented maximum). */
export const MAX_LAUNCH_TEMPLATE_CONFIGS = 50;

/** One override: an instance type in one subnet with one launch template's image. */
export interface FleetOverride {
  readonly instanceType: string;
  readonly zone: string;
  readonly subnetId: string;
  readonly imageId: string;
  /** USD per hour of this offering. */
  readonly price: number;
}

/** A launch template and the overrides that use it. */
export interface FleetTemplateConfig {
  readonly template: LaunchTemplateRef;
  readonly overrides: readonly FleetOverride[];
}

/** What one CreateFleet call will ask for. */
export interface FleetPlan {
  /**
   * Reserved when the NodeClaim allows it and an option has a usable reserved offering, else
   * spot when it allows spot and some option has an available spot offering, else on-demand
   * (Karpenter's `getCapacityType`).
   */
  readonly capacityType: CapacityType;
  /** For `reserved`: the one reservation this call launches into. */
  readonly capacityReservation?: LaunchReservation;
  /** Empty when nothing can be asked for; `skipped` then says why. */
  readonly configs: readonly FleetTemplateConfig[];
  /**
   * Offerings of the chosen capacity type left out before asking EC2: recently refused
   * (`OfferingUnavailable`), in a zone without a subnet (`NoSubnetInZone`) or whose subnets are
   * all out of addresses (`NoSubnetWithFreeAddresses`), or an instance type no launch template
   * serves (`NoLaunchTemplate`) or that is not in the catalog (`UnknownInstanceType`).
   */
  readonly skipped: readonly RefusedOffering[];
  /**
   * Addresses one launch takes in each subnet the plan uses: the fewest pods of the types it
   * asks for there (Karpenter's `minPods`, pkg/providers/subnet/subnet.go), since with the VPC
   * CNI every pod takes an address.
   */
  readonly subnetAddresses: ReadonlyMap<string, number>;
}

/** What {@link planFleet} decides from. */
export interface FleetPlanInput {
  readonly nodeClaim: NodeClaim;
  /** Cheapest first; at most {@link MAX_INSTANCE_TYPES} are used. */
  readonly options: readonly InstanceTypeOption[];
  readonly instanceTypes: ReadonlyMap<string, InstanceType>;
  readonly subnets: readonly ResolvedSubnet[];
  /** In the provider's order: an instance type uses the first template whose requirements it meets. */
  readonly launchTemplates: readonly LaunchTemplateRef[];
  /** UnavailableOfferings.keys(): offerings (and capacity types) EC2 recently refused or reclaimed. */
  readonly unavailable: ReadonlySet<string>;
  /** Subnets recently out of free addresses. @default none */
  readonly unavailableSubnets?: ReadonlySet<string>;
  /** Addresses launches of this invocation are expected to have taken, per subnet. @default none */
  readonly inflightAddresses?: ReadonlyMap<string, number>;
}

/** What {@link zonalSubnets} leaves out besides zones the NodeClaim does not allow. */
export interface ZonalSubnetOptions {
  /** Subnets out of addresses: never chosen. */
  readonly unavailable?: ReadonlySet<string>;
  /** Addresses already promised to launches in flight, subtracted from each subnet's count. */
  readonly inflight?: ReadonlyMap<string, number>;
}

/**
 * The subnet each zone launches into: the one with the most available IP addresses less those
 * in flight (ties by id, for determinism), among zones `zones` allows and subnets not out of
 * addresses (Karpenter's `ZonalSubnetsForLaunch`, pkg/providers/subnet/subnet.go).
 */
export function zonalSubnets(
  subnets: readonly ResolvedSubnet[],
  zones: Requirement | undefined,
  options: ZonalSubnetOptions = {},
): ReadonlyMap<string, ResolvedSubnet> {
  const free = (s: ResolvedSubnet) => s.availableIpAddressCount - (options.inflight?.get(s.id) ?? 0);
  const byZone = new Map<string, ResolvedSubnet>();
  for (const subnet of subnets) {
    if (zones !== undefined && !zones.has(subnet.zone)) continue;
    if (options.unavailable?.has(subnet.id)) continue;
    const best = byZone.get(subnet.zone);
    if (
      best === undefined ||
      free(subnet) > free(best) ||
      (free(subnet) === free(best) && subnet.id < best.id)
    ) {
      byZone.set(subnet.zone, subnet);
    }
  }
  return byZone;
}

/** Whether an instance type meets a launch template's requirements (arch, GPU / Neuron variants). */
export function templateServes(template: LaunchTemplateRef, instanceType: InstanceType): boolean {
  return (
    instanceType.requirements.compatible(Requirements.from(template.requirements), new Set()) === undefined
  );
}

/**
 * The capacity type one CreateFleet call buys for a NodeClaim, and for `reserved` the
 * reservation: reserved when the NodeClaim allows it and an option has an available reserved
 * offering its capacity-reservation-id requirement allows in a zone a subnet covers (the
 * cheapest one's reservation is used), else spot when the NodeClaim allows it and some option
 * has an available spot offering in a zone a subnet covers, after Karpenter's launch filters (a
 * spot offering dearer than the cheapest on-demand one does not count), else on-demand
 * (Karpenter's `getCapacityType`: reserved, spot, on-demand). The launcher decides it before
 * ensuring launch templates, because their user data labels the node with it and a reserved
 * template targets the reservation: template and fleet must agree.
 */
export function fleetCapacityType(input: Omit<FleetPlanInput, 'launchTemplates'>): {
  readonly capacityType: CapacityType;
  readonly capacityReservation?: LaunchReservation;
} {
  const { capacityType, reservation } = fleetContext(input);
  return reservation === undefined
    ? { capacityType }
    : { capacityType, capacityReservation: reservation.launch };
}

function fleetContext(input: Omit<FleetPlanInput, 'launchTemplates'>) {
  const requirements = Requirements.from(input.nodeClaim.spec.requirements);
  const zoneRequirement = requirements.get(LABEL_ZONE);
  const capacityTypeRequirement = requirements.get(LABEL_CAPACITY_TYPE);
  const reservationRequirement = requirements.get(LABEL_CAPACITY_RESERVATION_ID);
  const subnets = zonalSubnets(input.subnets, zoneRequirement, {
    ...(input.unavailableSubnets === undefined ? {} : { unavailable: input.unavailableSubnets }),
    ...(input.inflightAddresses === undefined ? {} : { inflight: input.inflightAddresses }),
  });
  const zonesWithSubnets = new Set(input.subnets.map((s) => s.zone));
  const skipped: RefusedOffering[] = [];

  const candidates: InstanceType[] = [];
  const seen = new Set<string>();
  for (const option of input.options) {
    if (seen.has(option.name)) continue;
    if (seen.size >= MAX_INSTANCE_TYPES) break;
    seen.add(option.name);
    const instanceType = input.instanceTypes.get(option.name);
    if (instanceType === undefined) {
      skipped.push({ ...offeringOf(option), code: 'UnknownInstanceType' });
      continue;
    }
    candidates.push(instanceType);
  }

  // The AWS provider launches on-demand unless spot is explicitly allowed (Karpenter).
  const allowsCapacityType = (ct: CapacityType): boolean =>
    capacityTypeRequirement === undefined ? ct === 'on-demand' : capacityTypeRequirement.has(ct);
  // Reserved offerings carry capacity-reservation-id In [their id], the others DoesNotExist.
  const allowsReservation = (o: Offering): boolean =>
    reservationRequirement === undefined ||
    (o.reservation !== undefined
      ? reservationRequirement.has(o.reservation.id)
      : reservationRequirement.operator === 'NotIn' || reservationRequirement.operator === 'DoesNotExist');
  const allowed = (o: Offering): boolean =>
    (zoneRequirement === undefined || zoneRequirement.has(o.zone)) &&
    allowsCapacityType(o.capacityType) &&
    allowsReservation(o);
  const available = (it: InstanceType, o: Offering): boolean =>
    o.available && !isOfferingUnavailable(input.unavailable, it.name, o.zone, o.capacityType);
  const usable = (it: InstanceType, o: Offering): boolean =>
    allowed(o) && available(it, o) && subnets.has(o.zone);

  const { kept: types } = applyLaunchFilters(candidates, {
    hasMinValues: input.nodeClaim.spec.requirements.some((r) => r.minValues !== undefined),
    allowsSpotAndOnDemand: allowsCapacityType('spot') && allowsCapacityType('on-demand'),
    usable,
  });
  const reservation = cheapestReservation(candidates, usable);
  const spot = types.some((it) => it.offerings.some((o) => o.capacityType === 'spot' && usable(it, o)));
  // A spot-only NodeClaim stays spot even without an available offering, so `skipped` says why,
  // and a reserved-only one stays reserved.
  const capacityType: CapacityType =
    reservation !== undefined ||
    (!allowsCapacityType('spot') && !allowsCapacityType('on-demand') && allowsCapacityType('reserved'))
      ? 'reserved'
      : spot || !allowsCapacityType('on-demand')
        ? 'spot'
        : 'on-demand';
  const noSubnet = (zone: string) =>
    zonesWithSubnets.has(zone) ? 'NoSubnetWithFreeAddresses' : 'NoSubnetInZone';
  return {
    // Karpenter's filters are about spot and on-demand; a reserved launch asks for its reservation.
    types: capacityType === 'reserved' ? candidates : types,
    skipped,
    subnets,
    allowed:
      capacityType === 'reserved'
        ? (o: Offering) => allowed(o) && o.reservation?.id === reservation?.launch.id
        : allowed,
    available,
    capacityType,
    noSubnet,
    reservation,
  } as const;
}

/**
 * The reservation a reserved launch goes into: that of the cheapest usable reserved offering
 * (ties by zone then id). Karpenter puts each reservation in a launch template of its own and
 * lets CreateFleet choose among them; podlift asks for one, and a ReservationCapacityExceeded
 * marks it so the NodeClaim's next launch asks for the next.
 */
function cheapestReservation(
  types: readonly InstanceType[],
  usable: (it: InstanceType, o: Offering) => boolean,
): { readonly launch: LaunchReservation; readonly instanceType: string } | undefined {
  let best: { o: Offering; it: InstanceType } | undefined;
  for (const it of types) {
    for (const o of it.offerings) {
      if (o.capacityType !== 'reserved' || o.reservation === undefined || !usable(it, o)) continue;
      const key = (x: Offering) => `${x.zone}|${x.reservation?.id}`;
      if (best === undefined || o.price < best.o.price || (o.price === best.o.price && key(o) < key(best.o)))
        best = { o, it };
    }
  }
  if (best?.o.reservation === undefined) return undefined;
  const { id, type, interruptible } = best.o.reservation;
  return { launch: { id, type, interruptible }, instanceType: best.it.name };
}

/**
 * Plans the CreateFleet call for one NodeClaim: capacity type, then for each option (cheapest
 * first, at most 60) the first launch template that serves it and one override per available
 * offering of that capacity type in a zone the NodeClaim allows and a subnet covers, cheapest
 * offering first, at most {@link MAX_FLEET_OVERRIDES} in all (the dearest options are dropped).
 */
export function planFleet(input: FleetPlanInput): FleetPlan {
  const { types, skipped, subnets, allowed, available, capacityType, noSubnet, reservation } =
    fleetContext(input);
  const subnetAddresses = new Map<string, number>();
  const configs = new Map<string, { template: LaunchTemplateRef; overrides: FleetOverride[] }>();
  let total = 0;
  for (const it of types) {
    const offerings = it.offerings
      .filter((o) => o.capacityType === capacityType && allowed(o))
      .sort((a, b) => a.price - b.price || (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0));
    const template = input.launchTemplates.find((t) => templateServes(t, it));
    const overrides: FleetOverride[] = [];
    for (const o of offerings) {
      const refused = { instanceType: it.name, zone: o.zone, capacityType: o.capacityType };
      const subnet = subnets.get(o.zone);
      if (!available(it, o)) skipped.push({ ...refused, code: 'OfferingUnavailable' });
      else if (subnet === undefined) skipped.push({ ...refused, code: noSubnet(o.zone) });
      else if (template === undefined) skipped.push({ ...refused, code: 'NoLaunchTemplate' });
      else
        overrides.push({
          instanceType: it.name,
          zone: o.zone,
          subnetId: subnet.id,
          imageId: template.imageId,
          price: o.price,
        });
    }
    if (template === undefined || overrides.length === 0) continue;
    // Whole instance types only: a type cut off half-way would hide zones it could use.
    if (total + overrides.length > MAX_FLEET_OVERRIDES) break;
    const key = template.launchTemplateId ?? template.launchTemplateName;
    let config = configs.get(key);
    if (config === undefined) {
      if (configs.size >= MAX_LAUNCH_TEMPLATE_CONFIGS) continue;
      config = { template, overrides: [] };
      configs.set(key, config);
    }
    config.overrides.push(...overrides);
    total += overrides.length;
    const pods = it.capacity[PODS] ?? 0;
    for (const o of overrides)
      subnetAddresses.set(o.subnetId, Math.min(subnetAddresses.get(o.subnetId) ?? pods, pods));
  }
  return {
    capacityType,
    ...(reservation === undefined ? {} : { capacityReservation: reservation.launch }),
    configs: [...configs.values()],
    skipped,
    subnetAddresses,
  };
}

function offeringOf(option: InstanceTypeOption): Omit<RefusedOffering, 'code'> {
  return { instanceType: option.name, zone: option.zone, capacityType: option.capacityType };
}
