import type {
  _InstanceType,
  CreateFleetCommandInput,
  DefaultTargetCapacityType,
  Tag,
} from '@aws-sdk/client-ec2';
import type { FleetPlan } from './fleet-plan';

/** What, besides the plan, goes into one CreateFleet request. */
export interface FleetRequestInput {
  readonly plan: Pick<FleetPlan, 'configs' | 'capacityType' | 'capacityReservation'>;
  readonly tags: Readonly<Record<string, string>>;
  /** EC2NodeClass spec.context (reserved capacity context), passed through as Karpenter does. */
  readonly context?: string;
  /** Instances to launch. @default 1: one NodeClaim per request */
  readonly count?: number;
}

/**
 * The fleet's DefaultTargetCapacityType, as aws/karpenter-provider-aws pkg/providers/instance/
 * types.go `defaultTargetCapacityType` sets it: a reserved launch asks for `capacity-block` in a
 * Capacity Block, `reserved-capacity` in an interruptible reservation, else `on-demand`.
 */
export function defaultTargetCapacityType(
  plan: Pick<FleetPlan, 'capacityType' | 'capacityReservation'>,
): DefaultTargetCapacityType {
  if (plan.capacityType !== 'reserved') return plan.capacityType;
  if (plan.capacityReservation?.type === 'capacity-block') return 'capacity-block';
  return plan.capacityReservation?.interruptible ? 'reserved-capacity' : 'on-demand';
}

/**
 * The CreateFleet request Karpenter makes: an `instant` fleet of one instance (a batcher
 * merging identical requests would raise `count`), `price-capacity-optimized` for spot,
 * `lowest-price` for on-demand, every override with its zone (so errors name it) and image,
 * and the same tags on the instance, its volumes and the fleet. Without a ClientToken: the
 * token is derived from this request (client-token.ts).
 */
export function createFleetInput(input: FleetRequestInput): Omit<CreateFleetCommandInput, 'ClientToken'> {
  const { plan } = input;
  const tags: Tag[] = Object.entries(input.tags).map(([Key, Value]) => ({ Key, Value }));
  return {
    Type: 'instant',
    ...(input.context === undefined ? {} : { Context: input.context }),
    LaunchTemplateConfigs: plan.configs.map((config) => ({
      LaunchTemplateSpecification: {
        ...(config.template.launchTemplateId === undefined
          ? { LaunchTemplateName: config.template.launchTemplateName }
          : { LaunchTemplateId: config.template.launchTemplateId }),
        Version: '$Latest',
      },
      Overrides: config.overrides.map((o) => ({
        // The SDK types InstanceType as a union of known names; new types are plain strings too.
        InstanceType: o.instanceType as _InstanceType,
        SubnetId: o.subnetId,
        AvailabilityZone: o.zone,
        ImageId: o.imageId,
      })),
    })),
    TargetCapacitySpecification: {
      TotalTargetCapacity: input.count ?? 1,
      DefaultTargetCapacityType: defaultTargetCapacityType(plan),
    },
    ...(plan.capacityType === 'spot'
      ? { SpotOptions: { AllocationStrategy: 'price-capacity-optimized' } }
      : { OnDemandOptions: { AllocationStrategy: 'lowest-price' } }),
    TagSpecifications: (['instance', 'volume', 'fleet'] as const).map((ResourceType) => ({
      ResourceType,
      Tags: tags,
    })),
  };
}
