import type { CreateFleetCommandOutput, CreateFleetError } from '@aws-sdk/client-ec2';
import type { CapacityType } from '../../core/model/capacity-type';
import type { RefusedOffering } from '../../core/model/errors';
import type { FleetPlan } from './fleet-plan';

/**
 * Per-override CreateFleet error codes that mean "no capacity right now": the offering is
 * marked unavailable, and a fleet refused only with these is an InsufficientCapacityError.
 * Exactly Karpenter's `unfulfillableCapacityErrorCodes` (aws/karpenter-provider-aws
 * pkg/errors/errors.go, used by `IsUnfulfillableCapacity`).
 */
export const UNFULFILLABLE_CAPACITY_CODES: ReadonlySet<string> = new Set([
  'InsufficientInstanceCapacity',
  'MaxSpotInstanceCountExceeded',
  'VcpuLimitExceeded',
  'UnfulfillableCapacity',
  'Unsupported',
  'InsufficientFreeAddressesInSubnet',
  'MaxFleetCountExceeded',
  'ReservationCapacityExceeded',
]);

/**
 * The per-override code EC2 answers when spot needs its service-linked role and the caller may
 * not create it: spot is unusable for the whole account until someone creates the role, so
 * Karpenter marks the capacity type unavailable and counts it with the capacity refusals
 * (`IsServiceLinkedRoleCreationNotPermitted`, `combineFleetErrors`, pkg/providers/instance/instance.go).
 */
export const SPOT_SERVICE_LINKED_ROLE_CODE = 'AuthFailure.ServiceLinkedRoleCreationNotPermitted';

/** The per-override code for a subnet out of free addresses (Karpenter's `IsInsufficientFreeAddressesInSubnet`). */
export const SUBNET_FULL_CODE = 'InsufficientFreeAddressesInSubnet';

/** The instance a fleet launched. */
export interface FleetInstance {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly imageId?: string;
}

/** What a CreateFleet answer means for the NodeClaim. */
export interface FleetOutcome {
  /** The first instance launched, if any. */
  readonly launched?: FleetInstance;
  /** Other instances launched (only when a fleet asked for more than one). */
  readonly extra: readonly FleetInstance[];
  /** Offerings refused for capacity: to be marked unavailable (spot's missing service-linked role included). */
  readonly refused: readonly RefusedOffering[];
  /** Errors that are not about capacity (bad launch template, AMI, parameter, ...). */
  readonly failed: readonly RefusedOffering[];
  /** Subnets EC2 said are out of free addresses. */
  readonly fullSubnets: readonly string[];
}

/**
 * Reads a CreateFleet `instant` answer. Zones come from the echoed override (podlift always
 * sends AvailabilityZone), else from the plan's subnet; capacity types from `Lifecycle`, else
 * the plan's.
 */
export function readFleetOutput(
  output: Pick<CreateFleetCommandOutput, 'Instances' | 'Errors'>,
  plan: Pick<FleetPlan, 'configs' | 'capacityType'>,
): FleetOutcome {
  const zoneOfSubnet = new Map<string, string>();
  for (const config of plan.configs) for (const o of config.overrides) zoneOfSubnet.set(o.subnetId, o.zone);
  const zoneOf = (overrides: { AvailabilityZone?: string; SubnetId?: string } | undefined): string =>
    overrides?.AvailabilityZone ??
    (overrides?.SubnetId === undefined ? undefined : zoneOfSubnet.get(overrides.SubnetId)) ??
    '';
  // A reserved fleet's instances are in the reservation whatever Lifecycle EC2 echoes (Karpenter
  // builds them with the capacity type it asked for, instance.go launchInstance).
  const capacityTypeOf = (lifecycle: string | undefined): CapacityType =>
    plan.capacityType === 'reserved'
      ? 'reserved'
      : lifecycle === 'spot'
        ? 'spot'
        : lifecycle === 'on-demand'
          ? 'on-demand'
          : plan.capacityType;

  const instances: FleetInstance[] = [];
  for (const item of output.Instances ?? []) {
    const overrides = item.LaunchTemplateAndOverrides?.Overrides;
    for (const instanceId of item.InstanceIds ?? []) {
      instances.push({
        instanceId,
        instanceType: item.InstanceType ?? overrides?.InstanceType ?? '',
        zone: zoneOf(overrides),
        capacityType: capacityTypeOf(item.Lifecycle),
        ...(overrides?.ImageId === undefined ? {} : { imageId: overrides.ImageId }),
      });
    }
  }
  const refused: RefusedOffering[] = [];
  const failed: RefusedOffering[] = [];
  const fullSubnets = new Set<string>();
  for (const error of output.Errors ?? []) {
    const offering = refusedOffering(error, zoneOf, capacityTypeOf);
    const capacity =
      UNFULFILLABLE_CAPACITY_CODES.has(offering.code) || offering.code === SPOT_SERVICE_LINKED_ROLE_CODE;
    (capacity ? refused : failed).push(offering);
    const subnetId = error.LaunchTemplateAndOverrides?.Overrides?.SubnetId;
    if (offering.code === SUBNET_FULL_CODE && subnetId !== undefined) fullSubnets.add(subnetId);
  }
  const [launched, ...extra] = instances;
  return {
    ...(launched === undefined ? {} : { launched }),
    extra,
    refused,
    failed,
    fullSubnets: [...fullSubnets],
  };
}

function refusedOffering(
  error: CreateFleetError,
  zoneOf: (overrides: { AvailabilityZone?: string; SubnetId?: string } | undefined) => string,
  capacityTypeOf: (lifecycle: string | undefined) => CapacityType,
): RefusedOffering {
  const overrides = error.LaunchTemplateAndOverrides?.Overrides;
  return {
    instanceType: overrides?.InstanceType ?? '',
    zone: zoneOf(overrides),
    capacityType: capacityTypeOf(error.Lifecycle),
    code: error.ErrorCode ?? 'UnknownError',
    ...(error.ErrorMessage === undefined ? {} : { message: error.ErrorMessage }),
  };
}
