import type { InstanceTypeInfo, RequestLaunchTemplateData } from '@aws-sdk/client-ec2';
import type { Ec2Network, SubnetRecord } from './network';

/**
 * What EC2 checks of a launch template only when CreateFleet launches from it, each refused
 * per override in the fleet's Errors[] as EC2 reports it (Karpenter's ToReasonMessage in
 * aws/karpenter-provider-aws pkg/errors/errors.go recognises both messages).
 */

/** Where the fake looks instance profiles up: a FakeIam, or anything with the same method. */
export interface InstanceProfileDirectory {
  instanceProfile(name: string): object | undefined;
}

/** A refused override: EC2's code and message. */
export interface LaunchCheckRefusal {
  readonly code: string;
  readonly message: string;
}

/**
 * A security group of the template in another VPC than the override's subnet:
 * `InvalidParameter: Security group sg-… and subnet subnet-… belong to different networks.`
 * Groups the fake does not know are left to other checks.
 */
export function networkRefusal(
  network: Ec2Network,
  data: RequestLaunchTemplateData,
  subnet: SubnetRecord | undefined,
): LaunchCheckRefusal | undefined {
  if (subnet === undefined) return undefined;
  const groups = [
    ...(data.SecurityGroupIds ?? []),
    ...(data.NetworkInterfaces ?? []).flatMap((eni) => eni.Groups ?? []),
  ];
  for (const id of groups) {
    const group = network.securityGroup(id);
    if (group !== undefined && group.VpcId !== subnet.subnet.VpcId) {
      return {
        code: 'InvalidParameter',
        message: `Security group ${id} and subnet ${subnet.subnet.SubnetId} belong to different networks.`,
      };
    }
  }
  return undefined;
}

/**
 * An instance profile the account does not have, named by the template:
 * `InvalidParameterValue: Value (name) for parameter iamInstanceProfile.name is invalid. Invalid
 * IAM Instance Profile name` (by ARN, `iamInstanceProfile.arn`). Without a directory, the fake
 * does not model IAM and takes any profile.
 */
export function instanceProfileRefusal(
  directory: InstanceProfileDirectory | undefined,
  data: RequestLaunchTemplateData,
): LaunchCheckRefusal | undefined {
  const profile = data.IamInstanceProfile;
  if (directory === undefined || profile === undefined) return undefined;
  if (profile.Name !== undefined && directory.instanceProfile(profile.Name) === undefined) {
    return {
      code: 'InvalidParameterValue',
      message: `Value (${profile.Name}) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name`,
    };
  }
  const byArn = profile.Arn?.split('/').at(-1);
  if (profile.Arn !== undefined && byArn !== undefined && directory.instanceProfile(byArn) === undefined) {
    return {
      code: 'InvalidParameterValue',
      message: `Value (${profile.Arn}) for parameter iamInstanceProfile.arn is invalid. Invalid IAM Instance Profile ARN`,
    };
  }
  return undefined;
}

/**
 * A template's network settings the override's instance type cannot take, as EC2 refuses them
 * at launch (CreateLaunchTemplate stores them unchecked): a network card index or device index
 * beyond the type's cards and their interfaces, an efa-only interface on a type without EFA, or
 * connection tracking timeouts on a type that is not built on Nitro. The codes are EC2's
 * parameter errors; the wording is the fake's own.
 */
export function instanceTypeRefusal(
  info: InstanceTypeInfo,
  data: RequestLaunchTemplateData,
): LaunchCheckRefusal | undefined {
  const type = info.InstanceType ?? '';
  const cards = info.NetworkInfo?.NetworkCards ?? [];
  for (const eni of data.NetworkInterfaces ?? []) {
    const cardIndex = eni.NetworkCardIndex ?? 0;
    const card = cards.find((c) => c.NetworkCardIndex === cardIndex);
    if (card === undefined) {
      return {
        code: 'InvalidParameterValue',
        message: `Network card index ${cardIndex} is invalid for instance type ${type}, which has ${cards.length} network card(s).`,
      };
    }
    if ((eni.DeviceIndex ?? 0) >= (card.MaximumNetworkInterfaces ?? 0)) {
      return {
        code: 'InvalidParameterValue',
        message: `Device index ${eni.DeviceIndex} is invalid for network card ${cardIndex} of instance type ${type}.`,
      };
    }
    if (
      (eni.InterfaceType === 'efa-only' || eni.InterfaceType === 'efa') &&
      !info.NetworkInfo?.EfaSupported
    ) {
      return {
        code: 'InvalidParameterCombination',
        message: `The instance type ${type} does not support Elastic Fabric Adapter (EFA) interfaces.`,
      };
    }
    if (eni.ConnectionTrackingSpecification !== undefined && info.Hypervisor !== 'nitro') {
      return {
        code: 'InvalidParameterCombination',
        message: `Connection tracking configuration is not supported for instance type ${type}.`,
      };
    }
  }
  return undefined;
}
