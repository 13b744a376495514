import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  type EC2Client,
  type RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { instanceTypeInfo } from '../../../../../sim/fakes/aws/ec2';
import { ec2World, instanceTypes } from '../../../../../sim/world/aws/ec2-world';
import { SUBNET_A } from '../../../../../sim/world/aws/region';

/**
 * FakeEc2 and the launch settings Karpenter v1.14's EC2NodeClass adds (network interfaces,
 * connection tracking, CPU options, tenancy): what CreateLaunchTemplate refuses by itself, and
 * what only a launch on a given instance type refuses.
 */

async function template(client: EC2Client, name: string, data: RequestLaunchTemplateData): Promise<string> {
  const out = await client.send(
    new CreateLaunchTemplateCommand({ LaunchTemplateName: name, LaunchTemplateData: data }),
  );
  return out.LaunchTemplate!.LaunchTemplateId!;
}

async function launchErrors(client: EC2Client, templateId: string, instanceType = 'm5.large') {
  const out = await client.send(
    new CreateFleetCommand({
      Type: 'instant',
      LaunchTemplateConfigs: [
        {
          LaunchTemplateSpecification: { LaunchTemplateId: templateId, Version: '$Latest' },
          Overrides: [{ InstanceType: instanceType as 'm5.large', SubnetId: SUBNET_A }],
        },
      ],
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
    }),
  );
  return {
    instances: out.Instances ?? [],
    errors: (out.Errors ?? []).map((e) => [e.ErrorCode, e.ErrorMessage]),
  };
}

const GROUPS = ['sg-0000000000000000a'];

describe('FakeEc2 launch settings', () => {
  it('refuses a nested virtualization value, a tenancy or a connection tracking timeout EC2 does not take', async () => {
    const { client } = ec2World();
    const refused = async (data: RequestLaunchTemplateData) =>
      template(client, 'bad', data).then(
        () => 'created',
        (e: Error) => `${e.name}: ${e.message}`,
      );
    expect(await refused({ CpuOptions: { NestedVirtualization: 'on' as 'enabled' } })).toBe(
      'InvalidParameterValue: Value (on) for parameter cpuOptions.nestedVirtualization is invalid.',
    );
    expect(await refused({ Placement: { Tenancy: 'shared' as 'default' } })).toBe(
      'InvalidParameterValue: Value (shared) for parameter placement.tenancy is invalid.',
    );
    expect(
      await refused({
        NetworkInterfaces: [
          { DeviceIndex: 0, Groups: GROUPS, ConnectionTrackingSpecification: { UdpTimeout: 90 } },
        ],
      }),
    ).toMatch(
      /^InvalidParameterValue: Value \(90\) for parameter networkInterface\.1\.connectionTrackingSpecification\.UdpTimeout is invalid/,
    );
    expect(
      await refused({
        CpuOptions: { NestedVirtualization: 'enabled' },
        Placement: { Tenancy: 'dedicated' },
        NetworkInterfaces: [
          { DeviceIndex: 0, Groups: GROUPS, ConnectionTrackingSpecification: { UdpTimeout: 60 } },
        ],
      }),
    ).toBe('created');
  });

  it('refuses at launch a network card, device index or EFA interface the instance type does not have', async () => {
    const { client, fake } = ec2World();
    const secondCard = await template(client, 'second-card', {
      NetworkInterfaces: [
        { NetworkCardIndex: 0, DeviceIndex: 0, Groups: GROUPS },
        { NetworkCardIndex: 1, DeviceIndex: 0, Groups: GROUPS },
      ],
    });
    expect((await launchErrors(client, secondCard)).errors).toEqual([
      [
        'InvalidParameterValue',
        'Network card index 1 is invalid for instance type m5.large, which has 1 network card(s).',
      ],
    ]);
    const fourthDevice = await template(client, 'fourth-device', {
      NetworkInterfaces: [
        { NetworkCardIndex: 0, DeviceIndex: 0, Groups: GROUPS },
        { NetworkCardIndex: 0, DeviceIndex: 3, Groups: GROUPS },
      ],
    });
    expect((await launchErrors(client, fourthDevice)).errors).toEqual([
      ['InvalidParameterValue', 'Device index 3 is invalid for network card 0 of instance type m5.large.'],
    ]);
    const efa = await template(client, 'efa', {
      NetworkInterfaces: [
        { NetworkCardIndex: 0, DeviceIndex: 0, Groups: GROUPS },
        { NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: 'efa-only', Groups: GROUPS },
      ],
    });
    expect((await launchErrors(client, efa)).errors).toEqual([
      [
        'InvalidParameterCombination',
        'The instance type m5.large does not support Elastic Fabric Adapter (EFA) interfaces.',
      ],
    ]);
    expect(fake.listInstances()).toEqual([]);
    const fine = await template(client, 'fine', {
      NetworkInterfaces: [
        {
          NetworkCardIndex: 0,
          DeviceIndex: 0,
          Groups: GROUPS,
          ConnectionTrackingSpecification: { TcpEstablishedTimeout: 3600 },
        },
      ],
    });
    expect((await launchErrors(client, fine)).instances).toHaveLength(1);
  });

  it('refuses at launch connection tracking on a type not built on Nitro', async () => {
    const xen = instanceTypeInfo({ name: 'm4.large', vcpu: 2, memoryMiB: 8192, hypervisor: 'xen' });
    const { client } = ec2World({ instanceTypes: [...instanceTypes, xen] });
    const tracked = await template(client, 'tracked', {
      NetworkInterfaces: [
        { DeviceIndex: 0, Groups: GROUPS, ConnectionTrackingSpecification: { UdpStreamTimeout: 120 } },
      ],
    });
    expect((await launchErrors(client, tracked, 'm4.large')).errors).toEqual([
      [
        'InvalidParameterCombination',
        'Connection tracking configuration is not supported for instance type m4.large.',
      ],
    ]);
    expect((await launchErrors(client, tracked, 'm5.large')).errors).toEqual([]);
  });
});
