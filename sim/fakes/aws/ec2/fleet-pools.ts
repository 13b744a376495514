import type {
  CreateFleetCommandInput,
  CreateFleetError,
  FleetLaunchTemplateOverridesRequest,
  FleetLaunchTemplateSpecification,
  InstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import type { Ec2CapacityReservations } from './capacity-reservations';
import type { Ec2Catalog } from './catalog';
import type { Ec2Context } from './context';
import type { CapacityType, FleetCapacity, Pool, RankedPool } from './fleet-capacity';
import {
  type InstanceProfileDirectory,
  instanceProfileRefusal,
  instanceTypeRefusal,
  networkRefusal,
} from './fleet-launch-checks';
import type { Ec2Images } from './images';
import type { Ec2Instances } from './instances';
import type { Ec2LaunchTemplates, LaunchTemplateRecord } from './launch-templates';
import type { Ec2Network, SubnetRecord } from './network';
import type { Ec2PlacementGroups } from './placement-groups';

/** One override of a fleet request, resolved to the capacity pool it launches into. */
export interface FleetPool extends RankedPool, Pool {
  readonly spec: FleetLaunchTemplateSpecification;
  readonly override: FleetLaunchTemplateOverridesRequest;
  readonly template: LaunchTemplateRecord;
  readonly subnet: SubnetRecord | undefined;
  readonly info: InstanceTypeInfo;
  readonly weight: number;
  /** The capacity reservation the template targets, whose slots (not the zone's pool) it takes. */
  readonly capacityReservation?: TargetedReservation;
}

/** A reservation a launch goes into, as the instance records it. */
export interface TargetedReservation {
  readonly id: string;
  readonly type: 'default' | 'capacity-block';
  /** Epoch ms; a Capacity Block's instances are reclaimed before it. */
  readonly endDate?: number;
  /** How the launch came into it: targeted (`capacity-reservations-only`) or as an `open` match. */
  readonly preference: 'capacity-reservations-only' | 'open';
}

/** Why an override cannot launch, as CreateFleet reports it. */
export interface Refusal {
  readonly code: string;
  readonly message: string;
}

/** The EC2 families CreateFleet reads and launches into. */
export interface FleetFamilies {
  readonly catalog: Ec2Catalog;
  readonly network: Ec2Network;
  readonly images: Ec2Images;
  readonly templates: Ec2LaunchTemplates;
  readonly instances: Ec2Instances;
  readonly capacity: FleetCapacity;
  /** The account's IAM, when the fake models it (FakeEc2.useIam). */
  readonly iam: { directory?: InstanceProfileDirectory };
  readonly placementGroups: Ec2PlacementGroups;
  readonly reservations: Ec2CapacityReservations;
}

/** Where an override would launch, before the pool checks. */
interface Placement {
  readonly template: LaunchTemplateRecord;
  readonly instanceType: string;
  readonly info: InstanceTypeInfo;
  readonly subnet: SubnetRecord | undefined;
  readonly zone: string;
}

/**
 * Resolves a fleet request's overrides to capacity pools as EC2 does, refusing each override
 * that cannot launch (missing template or subnet, security group of another VPC, unknown
 * instance profile, type not offered, AMI of another architecture, spot max price too low)
 * with the error code EC2 reports for it.
 */
export class FleetPools {
  constructor(
    private readonly context: Ec2Context,
    private readonly families: FleetFamilies,
  ) {}

  /** Every override of the request as a pool of `capacityType`; refused overrides become errors. */
  resolvePools(
    input: CreateFleetCommandInput,
    capacityType: CapacityType,
    errors: CreateFleetError[],
  ): FleetPool[] {
    const pools: FleetPool[] = [];
    let index = 0;
    for (const config of input.LaunchTemplateConfigs ?? []) {
      const spec = config.LaunchTemplateSpecification ?? {};
      const template = this.families.templates.find(spec);
      const overrides = config.Overrides?.length ? config.Overrides : [{}];
      for (const override of overrides) {
        index += 1;
        const resolved = this.resolvePool(spec, template, override, capacityType, index);
        if ('code' in resolved) errors.push(fleetError(spec, override, capacityType, resolved));
        else pools.push(resolved);
      }
    }
    return pools;
  }

  private resolvePool(
    spec: FleetLaunchTemplateSpecification,
    template: LaunchTemplateRecord | undefined,
    override: FleetLaunchTemplateOverridesRequest,
    capacityType: CapacityType,
    index: number,
  ): FleetPool | Refusal {
    if (template === undefined) {
      const notFound = this.families.templates.notFound(spec);
      return { code: notFound.name, message: notFound.message };
    }
    const placement = this.place(template, override);
    if ('code' in placement) return placement;
    const launchRefusal =
      networkRefusal(this.families.network, template.data, placement.subnet) ??
      instanceProfileRefusal(this.families.iam.directory, template.data) ??
      instanceTypeRefusal(placement.info, template.data) ??
      this.families.placementGroups.refusal(
        template.data,
        placement.info,
        placement.zone,
        this.families.instances.placed(),
      );
    if (launchRefusal !== undefined) return launchRefusal;
    const pool: Pool = {
      instanceType: placement.instanceType,
      availabilityZone: placement.zone,
      capacityType,
    };
    const refusal = this.offeringRefusal(pool, placement.info) ?? this.imageRefusal(placement, override);
    if (refusal !== undefined) return refusal;
    const reservation = this.reservationOf(template, placement, capacityType);
    if (reservation !== undefined && 'code' in reservation) return reservation;
    const price = this.families.catalog.priceOf(pool);
    if (capacityType === 'spot' && override.MaxPrice !== undefined && Number(override.MaxPrice) < price) {
      return {
        code: 'SpotMaxPriceTooLow',
        message: `Your Spot request price of ${override.MaxPrice} is lower than the minimum required Spot request fulfillment price of ${price}.`,
      };
    }
    const weight = override.WeightedCapacity ?? 1;
    return {
      ...pool,
      index,
      pricePerUnit: price / weight,
      available: this.availableIn({
        ...pool,
        ...(reservation === undefined ? {} : { capacityReservation: reservation }),
      }),
      priority: override.Priority,
      capacityScore: this.families.capacity.capacityScoreOf(pool),
      spec,
      override,
      template,
      subnet: placement.subnet,
      info: placement.info,
      weight,
      ...(reservation === undefined ? {} : { capacityReservation: reservation }),
    };
  }

  /**
   * The reservation a template's CapacityReservationSpecification targets, or why the launch
   * cannot go into it (ReservationCapacityExceeded when full or of another type or zone); none
   * without a target. With `capacity-reservations-only` and no target EC2 would pick an open
   * reservation; podlift always names one, so the fake refuses that rather than guess.
   */
  private reservationOf(
    template: LaunchTemplateRecord,
    placement: Placement,
    capacityType: CapacityType,
  ): TargetedReservation | Refusal | undefined {
    const spec = template.data.CapacityReservationSpecification;
    const id = spec?.CapacityReservationTarget?.CapacityReservationId;
    if (id === undefined) {
      if (spec?.CapacityReservationPreference === 'capacity-reservations-only') {
        return {
          code: 'InvalidParameterCombination',
          message: 'FakeEc2 models only targeted capacity reservations: CapacityReservationTarget is missing',
        };
      }
      // EC2's default preference is `open`: an on-demand launch runs in a matching open ODCR.
      const open =
        capacityType === 'on-demand' && spec?.CapacityReservationPreference !== 'none'
          ? this.families.reservations.openFor(placement.instanceType, placement.zone)
          : undefined;
      return open === undefined ? undefined : { id: open, type: 'default', preference: 'open' };
    }
    const { reservations } = this.families;
    const refusal = reservations.refusal(
      id,
      placement.instanceType,
      placement.zone,
      template.data.InstanceMarketOptions?.MarketType,
    );
    if (refusal !== undefined) return refusal;
    const found = reservations.find(id)!;
    return {
      id,
      type: found.ReservationType === 'capacity-block' ? 'capacity-block' : 'default',
      ...(found.EndDate === undefined ? {} : { endDate: found.EndDate.getTime() }),
      preference: 'capacity-reservations-only',
    };
  }

  /** The instance type, subnet and zone an override names, falling back to the template's. */
  private place(
    template: LaunchTemplateRecord,
    override: FleetLaunchTemplateOverridesRequest,
  ): Placement | Refusal {
    const { catalog, network } = this.families;
    const instanceType = override.InstanceType ?? template.data.InstanceType;
    const info = instanceType === undefined ? undefined : catalog.info(instanceType);
    if (instanceType === undefined || info === undefined) {
      return {
        code: 'InvalidParameterValue',
        message: `Invalid value '${instanceType ?? ''}' for InstanceType.`,
      };
    }
    const subnet = override.SubnetId === undefined ? undefined : network.subnet(override.SubnetId);
    if (override.SubnetId !== undefined && subnet === undefined) {
      return {
        code: 'InvalidSubnetID.NotFound',
        message: `The subnet ID '${override.SubnetId}' does not exist`,
      };
    }
    const zone =
      subnet?.subnet.AvailabilityZone ??
      override.AvailabilityZone ??
      template.data.Placement?.AvailabilityZone ??
      this.context.availabilityZones[0]!;
    if (override.AvailabilityZone !== undefined && override.AvailabilityZone !== zone) {
      return {
        code: 'InvalidParameterValue',
        message: `The Availability Zone ${override.AvailabilityZone} does not match the subnet ${override.SubnetId} in ${zone}`,
      };
    }
    return { template, instanceType, info, subnet, zone };
  }

  /** Why the pool cannot be bought at all: the type is not offered in the zone or not in this market. */
  private offeringRefusal(pool: Pool, info: InstanceTypeInfo): Refusal | undefined {
    const { catalog } = this.families;
    if (!catalog.isOffered(pool.instanceType, pool.availabilityZone)) {
      const elsewhere = this.context.availabilityZones.filter((z) => catalog.isOffered(pool.instanceType, z));
      return {
        code: 'Unsupported',
        message: `Your requested instance type (${pool.instanceType}) is not supported in your requested Availability Zone (${pool.availabilityZone}). Please retry your request by not specifying an Availability Zone or choosing ${elsewhere.join(', ')}.`,
      };
    }
    if (!(info.SupportedUsageClasses ?? []).includes(pool.capacityType)) {
      return {
        code: 'Unsupported',
        message:
          'The requested configuration is currently not supported. Please check the documentation for supported configurations.',
      };
    }
    return undefined;
  }

  /** Why the override's AMI cannot boot it: missing, or built for another architecture. */
  private imageRefusal(
    placement: Placement,
    override: FleetLaunchTemplateOverridesRequest,
  ): Refusal | undefined {
    const imageId = override.ImageId ?? placement.template.data.ImageId;
    const image = imageId === undefined ? undefined : this.families.images.image(imageId);
    if (imageId !== undefined && image === undefined) {
      return { code: 'InvalidAMIID.NotFound', message: `The image id '[${imageId}]' does not exist` };
    }
    const typeArchitectures: string[] = placement.info.ProcessorInfo?.SupportedArchitectures ?? [];
    if (image?.Architecture !== undefined && !typeArchitectures.includes(image.Architecture)) {
      return {
        code: 'InvalidParameterValue',
        message: `The architecture '${typeArchitectures.join(', ')}' of the specified instance type does not match the architecture '${image.Architecture}' of the specified AMI. Specify an instance type and an AMI that have matching architectures, and try again.`,
      };
    }
    return undefined;
  }

  /** Instances `pool` can still launch now: its capacity less what runs in it. */
  availableIn(pool: Pool & { readonly capacityReservation?: TargetedReservation }): number {
    if (pool.capacityReservation !== undefined)
      return this.families.reservations.available(pool.capacityReservation.id);
    return Math.max(0, this.families.capacity.capacityOf(pool) - this.families.instances.liveIn(pool));
  }
}

/** A refused override as CreateFleet reports it. */
export function fleetError(
  spec: FleetLaunchTemplateSpecification,
  override: FleetLaunchTemplateOverridesRequest,
  capacityType: CapacityType,
  refusal: Refusal,
): CreateFleetError {
  return {
    LaunchTemplateAndOverrides: {
      LaunchTemplateSpecification: echoSpec(spec),
      Overrides: echoOverride(override),
    },
    Lifecycle: capacityType,
    ErrorCode: refusal.code,
    ErrorMessage: refusal.message,
  };
}

/** The launch template specification as CreateFleet echoes it back. */
export function echoSpec(spec: FleetLaunchTemplateSpecification): FleetLaunchTemplateSpecification {
  return {
    ...(spec.LaunchTemplateId === undefined ? {} : { LaunchTemplateId: spec.LaunchTemplateId }),
    ...(spec.LaunchTemplateName === undefined ? {} : { LaunchTemplateName: spec.LaunchTemplateName }),
    Version: spec.Version ?? '$Default',
  };
}

/** The override as CreateFleet echoes it back: only the fields the request set. */
export function echoOverride(override: FleetLaunchTemplateOverridesRequest) {
  const { InstanceType, SubnetId, AvailabilityZone, Priority, WeightedCapacity, MaxPrice, ImageId } =
    override;
  return Object.fromEntries(
    Object.entries({
      InstanceType,
      SubnetId,
      AvailabilityZone,
      Priority,
      WeightedCapacity,
      MaxPrice,
      ImageId,
    }).filter(([, value]) => value !== undefined),
  );
}
