import type {
  _InstanceType,
  ArchitectureValues,
  Instance,
  InstanceTypeInfo,
  RequestLaunchTemplateData,
  Tag,
} from '@aws-sdk/client-ec2';
import type { Ec2Context } from './context';
import type { Pool } from './fleet-capacity';
import type { TargetedReservation } from './fleet-pools';
import { platformDetails, WINDOWS_PLATFORM } from './images';
import type { Ec2Network, SubnetRecord } from './network';

/**
 * What a fleet launches and what the launched instance looks like: the description EC2
 * gives of a new instance, before its state moves on the clock (instances.ts).
 */

/** One instance a fleet launches into a pool. */
export interface InstanceLaunch extends Pool {
  readonly info: InstanceTypeInfo;
  readonly data: RequestLaunchTemplateData;
  readonly imageId: string | undefined;
  /** `windows` when launched from a Windows AMI. */
  readonly platform?: 'windows';
  readonly subnet: SubnetRecord | undefined;
  readonly tags: Tag[];
  readonly volumeTags: Tag[];
  readonly reservationId: string;
  readonly launchIndex: number;
  /** The placement group the template put it in, with its partition for partition groups. */
  readonly placementGroup?: { readonly name: string; readonly id: string; readonly partition?: number };
  /** The capacity reservation it launched into. */
  readonly capacityReservation?: TargetedReservation;
}

/**
 * The instance EC2 describes right after launching `launch` at `now` (its state is added when
 * it is read): a fresh id, a private address from the subnet, the DNS name EC2 derives from it,
 * the template's security groups, profile and tenancy, and the spot request of a spot launch.
 */
export function launchedInstance(
  context: Ec2Context,
  network: Ec2Network,
  launch: InstanceLaunch,
  now: number,
): Instance {
  const { region, accountId, defaultVpcId } = context;
  const instanceId = `i-${context.hexId(17)}`;
  const address =
    launch.subnet === undefined
      ? `10.255.0.${(context.serial() % 250) + 4}`
      : network.allocateAddress(launch.subnet);
  const dnsSuffix = region === 'us-east-1' ? 'ec2.internal' : `${region}.compute.internal`;
  const profile = launch.data.IamInstanceProfile;
  return {
    InstanceId: instanceId,
    InstanceType: launch.instanceType as _InstanceType,
    ImageId: launch.imageId,
    LaunchTime: new Date(now),
    Placement: {
      AvailabilityZone: launch.availabilityZone,
      Tenancy: launch.data.Placement?.Tenancy ?? 'default',
      GroupName: launch.placementGroup?.name ?? '',
      ...(launch.placementGroup === undefined ? {} : { GroupId: launch.placementGroup.id }),
      ...(launch.placementGroup?.partition === undefined
        ? {}
        : { PartitionNumber: launch.placementGroup.partition }),
    },
    SubnetId: launch.subnet?.subnet.SubnetId,
    VpcId: launch.subnet?.subnet.VpcId ?? defaultVpcId,
    PrivateIpAddress: address,
    PrivateDnsName: `ip-${address.replaceAll('.', '-')}.${dnsSuffix}`,
    Architecture: (launch.info.ProcessorInfo?.SupportedArchitectures?.[0] ?? 'x86_64') as ArchitectureValues,
    Hypervisor: 'xen',
    VirtualizationType: 'hvm',
    RootDeviceName: launch.platform === 'windows' ? '/dev/sda1' : '/dev/xvda',
    RootDeviceType: 'ebs',
    EbsOptimized: true,
    EnaSupport: true,
    AmiLaunchIndex: launch.launchIndex,
    SecurityGroups: (launch.data.SecurityGroupIds ?? []).map((id) => ({
      GroupId: id,
      GroupName: network.securityGroup(id)?.GroupName,
    })),
    ...(profile === undefined
      ? {}
      : {
          IamInstanceProfile: {
            Arn: profile.Arn ?? `arn:aws:iam::${accountId}:instance-profile/${profile.Name}`,
            Id: `AIPA${context.hexId(17).toUpperCase()}`,
          },
        }),
    ...(launch.capacityType === 'spot'
      ? { InstanceLifecycle: 'spot' as const, SpotInstanceRequestId: `sir-${context.hexId(8)}` }
      : {}),
    // In a reservation: its id and the targeted specification, as DescribeInstances shows them;
    // a Capacity Block's instances have the lifecycle `capacity-block`.
    ...(launch.capacityReservation === undefined
      ? {}
      : {
          CapacityReservationId: launch.capacityReservation.id,
          CapacityReservationSpecification:
            launch.capacityReservation.preference === 'open'
              ? { CapacityReservationPreference: 'open' as const }
              : {
                  CapacityReservationPreference: 'capacity-reservations-only' as const,
                  CapacityReservationTarget: { CapacityReservationId: launch.capacityReservation.id },
                },
          ...(launch.capacityReservation.type === 'capacity-block'
            ? { InstanceLifecycle: 'capacity-block' as const }
            : {}),
        }),
    StateTransitionReason: '',
    Tags: launch.tags,
    ...(launch.platform === 'windows' ? { Platform: WINDOWS_PLATFORM } : {}),
    ...platformDetails(launch.platform === 'windows'),
  };
}
