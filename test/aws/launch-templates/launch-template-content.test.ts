import { describe, expect, it } from 'vitest';
import { launchTemplateContent } from '../../../shared/aws/launch-templates/launch-template-data';
import type { EC2NodeClass } from '../../../shared/core/model/ec2nodeclass';
import { isValidationError } from '../../../shared/core/model/errors';
import type { NodeSelectorRequirement } from '../../../shared/core/model/requirements';
import type { LaunchRequest } from '../../../shared/core/ports/cloud';
import {
  amis,
  launchRequest,
  launchTemplateWorld,
  resolved,
} from '../../../sim/world/aws/launch-template-world';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';

/** The data of the one template ensured for `request`. */
async function templateData(request: LaunchRequest) {
  const { provider, fake } = launchTemplateWorld();
  const [ref] = await provider.ensure(request, cluster);
  return fake.launchTemplateData(ref.launchTemplateName);
}

function withNodeClass(overrides: Parameters<typeof nodeClass>[0]): LaunchRequest {
  return launchRequest({ nodeClass: nodeClass(overrides) });
}

describe('launch template content', () => {
  // aws/karpenter-provider-aws pkg/providers/launchtemplate/types.go Build, LaunchModeTargeted.
  it('targets a reserved launch at its reservation only, with market type capacity-block for a block', async () => {
    const block = await templateData({
      ...launchRequest({ capacityType: 'reserved' }),
      capacityReservation: { id: 'cr-0123456789abcdef0', type: 'capacity-block', interruptible: false },
    });
    expect(block?.CapacityReservationSpecification).toEqual({
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: 'cr-0123456789abcdef0' },
    });
    expect(block?.InstanceMarketOptions).toEqual({ MarketType: 'capacity-block' });
    const odcr = await templateData({
      ...launchRequest({ capacityType: 'reserved' }),
      capacityReservation: { id: 'cr-0123456789abcdef0', type: 'default', interruptible: false },
    });
    expect(odcr?.InstanceMarketOptions).toBeUndefined();
  });

  it('opts on-demand and spot launches out of reservations with the ReservedCapacity gate on, not with it off', async () => {
    expect(
      (await templateData(launchRequest({ capacityType: 'on-demand' })))?.CapacityReservationSpecification,
    ).toEqual({
      CapacityReservationPreference: 'none',
    });
    const { provider, fake } = launchTemplateWorld({ reservedCapacity: false });
    const [ref] = await provider.ensure(launchRequest({ capacityType: 'on-demand' }), cluster);
    expect(
      fake.launchTemplateData(ref!.launchTemplateName)?.CapacityReservationSpecification,
    ).toBeUndefined();
  });

  it("gives Bottlerocket Karpenter's two default volumes: 4Gi for the OS on /dev/xvda, 20Gi for data on /dev/xvdb", async () => {
    const data = await templateData(withNodeClass({ amiFamily: 'Bottlerocket' }));
    expect(data?.BlockDeviceMappings).toEqual([
      { DeviceName: '/dev/xvda', Ebs: { VolumeSize: 4, VolumeType: 'gp3', Encrypted: true } },
      { DeviceName: '/dev/xvdb', Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true } },
    ]);
  });

  it('leaves volumes to the AMI for the Custom family, and sends its userData unchanged', async () => {
    const data = await templateData(withNodeClass({ amiFamily: 'Custom', userData: '#!/bin/bash\nnodeup' }));
    expect(data?.BlockDeviceMappings).toBeUndefined();
    expect(Buffer.from(data?.UserData ?? '', 'base64').toString()).toBe('#!/bin/bash\nnodeup');
  });

  it("uses the EC2NodeClass's block devices, IMDS options and detailed monitoring instead of the defaults", async () => {
    const data = await templateData(
      withNodeClass({
        blockDeviceMappings: [
          {
            deviceName: '/dev/xvda',
            rootVolume: true,
            ebs: {
              volumeSize: '100Gi',
              volumeType: 'io2',
              iops: 5000,
              encrypted: true,
              kmsKeyID: 'arn:aws:kms:us-east-1:123456789012:key/abc',
              deleteOnTermination: true,
            },
          },
          {
            deviceName: '/dev/xvdb',
            ebs: { volumeSize: '1500M', snapshotID: 'snap-0123', volumeInitializationRate: 200 },
          },
        ],
        metadataOptions: { httpPutResponseHopLimit: 2, httpTokens: 'optional', httpProtocolIPv6: 'enabled' },
        detailedMonitoring: true,
      }),
    );
    expect(data?.BlockDeviceMappings).toEqual([
      {
        DeviceName: '/dev/xvda',
        Ebs: {
          VolumeSize: 100,
          VolumeType: 'io2',
          Iops: 5000,
          Encrypted: true,
          KmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/abc',
          DeleteOnTermination: true,
        },
      },
      {
        DeviceName: '/dev/xvdb',
        Ebs: { VolumeSize: 2, SnapshotId: 'snap-0123', VolumeInitializationRate: 200 },
      },
    ]);
    expect(data?.MetadataOptions).toEqual({
      HttpEndpoint: 'enabled',
      HttpProtocolIpv6: 'enabled',
      HttpPutResponseHopLimit: 2,
      HttpTokens: 'optional',
      InstanceMetadataTags: 'disabled',
    });
    expect(data?.Monitoring).toEqual({ Enabled: true });
  });

  it('tags the network interfaces it makes, and the spot requests of spot templates only, as Karpenter does', async () => {
    const tags = [
      { Key: 'team', Value: 'ml' },
      { Key: 'kubernetes.io/cluster/demo', Value: 'owned' },
      { Key: 'eks:eks-cluster-name', Value: 'demo' },
      { Key: 'karpenter.sh/nodepool', Value: 'default' },
      { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: 'default' },
    ];
    const spot = await templateData(
      launchRequest({ nodeClass: nodeClass({ tags: { team: 'ml' } }), capacityType: 'spot' }),
    );
    expect(spot?.TagSpecifications).toEqual([
      { ResourceType: 'network-interface', Tags: tags },
      { ResourceType: 'spot-instances-request', Tags: tags },
    ]);
    const onDemand = await templateData(
      launchRequest({ nodeClass: nodeClass({ tags: { team: 'ml' } }), capacityType: 'on-demand' }),
    );
    expect(onDemand?.TagSpecifications).toEqual([{ ResourceType: 'network-interface', Tags: tags }]);
  });

  it("refuses user data over EC2's 16 KB before calling EC2, naming the EC2NodeClass", async () => {
    const { provider, fake } = launchTemplateWorld();
    const error = await provider
      .ensure(withNodeClass({ name: 'big', userData: `#!/bin/bash\n#${'x'.repeat(17_000)}\n` }), cluster)
      .catch((e: unknown) => e);
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toMatch(
      /EC2NodeClass\/big: spec\.userData: the AL2023 user data rendered from it is over EC2's limit of 16384 bytes/,
    );
    expect(fake.calls).toHaveLength(0);
  });

  it('puts the security groups on a primary interface when associatePublicIPAddress or ipPrefixCount is set', async () => {
    for (const [overrides, extra] of [
      [{ associatePublicIPAddress: true }, { AssociatePublicIpAddress: true }],
      [{ associatePublicIPAddress: false }, { AssociatePublicIpAddress: false }],
      [{ ipPrefixCount: 2 } as Partial<EC2NodeClass>, { Ipv4PrefixCount: 2 }],
    ] as const) {
      const request = launchRequest({ nodeClass: { ...nodeClass(), ...overrides } });
      const data = await templateData(request);
      expect(data?.SecurityGroupIds).toBeUndefined();
      expect(data?.NetworkInterfaces).toEqual([
        { DeviceIndex: 0, Groups: ['sg-0000000000000000a', 'sg-0000000000000000b'], ...extra },
      ]);
    }
  });

  it("lists the EC2NodeClass's network interfaces with the security groups and IP settings", async () => {
    const data = await templateData(
      launchRequest({
        nodeClass: {
          ...nodeClass({ associatePublicIPAddress: true }),
          connectionTracking: { tcpEstablishedTimeout: 3600, udpTimeout: 30 },
          networkInterfaces: [
            { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
            { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'interface' },
          ],
        },
      }),
    );
    const settings = {
      InterfaceType: 'interface',
      Groups: ['sg-0000000000000000a', 'sg-0000000000000000b'],
      AssociatePublicIpAddress: true,
      ConnectionTrackingSpecification: { TcpEstablishedTimeout: 3600, UdpTimeout: 30 },
    };
    expect(data?.SecurityGroupIds).toBeUndefined();
    expect(data?.NetworkInterfaces).toEqual([
      { NetworkCardIndex: 0, DeviceIndex: 0, ...settings },
      { NetworkCardIndex: 0, DeviceIndex: 1, ...settings },
    ]);
  });

  it('gives efa-only interfaces no public IP, prefixes or connection tracking, which EC2 refuses on them', () => {
    const { data } = launchTemplateContent({
      cluster: 'demo',
      nodeClass: {
        ...nodeClass({ associatePublicIPAddress: true }),
        ipPrefixCount: 1,
        connectionTracking: { udpTimeout: 30 },
        networkInterfaces: [
          { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
          { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
        ],
      },
      nodePoolName: 'default',
      resolved: resolved(),
      imageId: 'ami-0123',
      capacityType: 'on-demand',
    });
    const groups = ['sg-0000000000000000a', 'sg-0000000000000000b'];
    expect(data.NetworkInterfaces).toEqual([
      {
        NetworkCardIndex: 0,
        DeviceIndex: 0,
        InterfaceType: 'interface',
        Groups: groups,
        AssociatePublicIpAddress: true,
        Ipv4PrefixCount: 1,
        ConnectionTrackingSpecification: { UdpTimeout: 30 },
      },
      { NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: 'efa-only', Groups: groups },
    ]);
  });

  it('puts connection tracking on a primary interface, and nested virtualization in the CPU options', async () => {
    const data = await templateData(
      launchRequest({
        nodeClass: {
          ...nodeClass(),
          connectionTracking: { udpStreamTimeout: 120 },
          cpuOptions: { nestedVirtualization: 'enabled' },
        },
      }),
    );
    expect(data?.NetworkInterfaces).toEqual([
      {
        DeviceIndex: 0,
        Groups: ['sg-0000000000000000a', 'sg-0000000000000000b'],
        ConnectionTrackingSpecification: { UdpStreamTimeout: 120 },
      },
    ]);
    expect(data?.CpuOptions).toEqual({ NestedVirtualization: 'enabled' });
  });

  it('launches on dedicated hardware only when the NodeClaim excludes default tenancy, as Karpenter does', async () => {
    const tenancy = (values: string[] | undefined) =>
      templateData(
        launchRequest({
          nodeClaim: nodeClaim({
            requirements:
              values === undefined
                ? []
                : [{ key: 'karpenter.k8s.aws/instance-tenancy', operator: 'In', values }],
          }),
        }),
      ).then((d) => d?.Placement);
    expect(await tenancy(['dedicated'])).toEqual({ Tenancy: 'dedicated' });
    expect(await tenancy(['default', 'dedicated'])).toBeUndefined();
    expect(await tenancy(undefined)).toBeUndefined();
  });

  it('puts the resolved placement group on the template by id, with the lowest partition the NodeClaim allows', async () => {
    const placement = (
      group: NonNullable<ReturnType<typeof resolved>['placementGroup']>,
      requirements: readonly NodeSelectorRequirement[],
    ) =>
      templateData(
        launchRequest({
          nodeClaim: nodeClaim({ requirements }),
          resolved: resolved({ placementGroup: group }),
        }),
      ).then((d) => d?.Placement);
    const kafka = {
      id: 'pg-0123456789abcdef0',
      name: 'kafka',
      strategy: 'partition',
      partitionCount: 3,
    } as const;
    const partitions = (values: string[]) => [
      { key: 'karpenter.k8s.aws/placement-group-partition', operator: 'In' as const, values },
    ];

    expect(await placement(kafka, partitions(['3', '2']))).toEqual({ GroupId: kafka.id, PartitionNumber: 2 });
    // EC2 picks the partition when the NodeClaim names none, or none the group has.
    expect(await placement(kafka, [])).toEqual({ GroupId: kafka.id });
    expect(await placement(kafka, partitions(['7']))).toEqual({ GroupId: kafka.id });
    // Only partition groups have partitions.
    expect(
      await placement({ id: 'pg-0aaaaaaaaaaaaaaa1', name: 'hpc', strategy: 'cluster' }, partitions(['1'])),
    ).toEqual({
      GroupId: 'pg-0aaaaaaaaaaaaaaa1',
    });
    expect(
      await placement(kafka, [
        ...partitions(['1']),
        { key: 'karpenter.k8s.aws/instance-tenancy', operator: 'In', values: ['dedicated'] },
      ]),
    ).toEqual({ Tenancy: 'dedicated', GroupId: kafka.id, PartitionNumber: 1 });
  });

  it('rejects a volume size that is not a quantity, naming the field', async () => {
    const { provider } = launchTemplateWorld();
    const error = await provider
      .ensure(
        withNodeClass({ blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: 'big' } }] }),
        cluster,
      )
      .catch((e: unknown) => e);
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toContain(
      'EC2NodeClass/default: spec.blockDeviceMappings[0].ebs.volumeSize: not a Kubernetes quantity',
    );
  });
});

describe('launch template names', () => {
  async function nameFor(request: LaunchRequest, onCluster = cluster): Promise<string> {
    const { provider } = launchTemplateWorld();
    const [ref] = await provider.ensure(request, onCluster);
    return ref.launchTemplateName;
  }

  it('are the same for the same inputs in every process, whatever the order of the security groups', async () => {
    const base = await nameFor(launchRequest());
    expect(await nameFor(launchRequest())).toBe(base);
    const reordered = resolved({
      securityGroups: [{ id: 'sg-0000000000000000a' }, { id: 'sg-0000000000000000b' }],
    });
    expect(await nameFor(launchRequest({ resolved: reordered }))).toBe(base);
    // A NodeClaim of another name with the same settings shares the template.
    expect(await nameFor(launchRequest({ nodeClaim: nodeClaim({ name: 'default-other' }) }))).toBe(base);
  });

  it('change when anything in the template changes', async () => {
    const base = await nameFor(launchRequest());
    const variants: Record<string, Promise<string>> = {
      ami: nameFor(launchRequest({ resolved: resolved({ amis: [{ ...amis.standard, id: 'ami-0newer' }] }) })),
      securityGroups: nameFor(launchRequest({ resolved: resolved({ securityGroups: [{ id: 'sg-0c' }] }) })),
      instanceProfile: nameFor(launchRequest({ resolved: resolved({ instanceProfile: 'other' }) })),
      userData: nameFor(withNodeClass({ userData: 'echo hi' })),
      kubelet: nameFor(withNodeClass({ kubelet: { maxPods: 50 } })),
      metadataOptions: nameFor(withNodeClass({ metadataOptions: { httpPutResponseHopLimit: 2 } })),
      blockDevices: nameFor(
        withNodeClass({ blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '21Gi' } }] }),
      ),
      monitoring: nameFor(withNodeClass({ detailedMonitoring: true })),
      publicIp: nameFor(withNodeClass({ associatePublicIPAddress: false })),
      tags: nameFor(withNodeClass({ tags: { team: 'ml' } })),
      nodeClassName: nameFor(withNodeClass({ name: 'other' })),
      nodePool: nameFor(launchRequest({ nodePool: 'batch' })),
      labels: nameFor(launchRequest({ nodeClaim: nodeClaim({ labels: { team: 'ml' } }) })),
      taints: nameFor(
        launchRequest({ nodeClaim: nodeClaim({ taints: [{ key: 'x', effect: 'NoSchedule' }] }) }),
      ),
      capacityType: nameFor(launchRequest({ capacityType: 'on-demand' })),
      maxPods: nameFor(launchRequest({ types: ['m5.xlarge'] })),
      endpoint: nameFor(launchRequest(), { ...cluster, endpoint: 'https://other.example.com' }),
    };
    const names = Object.fromEntries(
      await Promise.all(Object.entries(variants).map(async ([k, v]) => [k, await v] as const)),
    );
    for (const [input, name] of Object.entries(names)) {
      expect({ input, changed: name !== base }).toEqual({ input, changed: true });
    }
    expect(new Set(Object.values(names)).size).toBe(Object.keys(names).length);
  });

  it('name the cluster, and reject cluster names EC2 cannot put in a template name', async () => {
    expect(await nameFor(launchRequest(), { ...cluster, name: 'k8s.example.com' })).toMatch(
      /^podlift\/k8s\.example\.com\/[0-9a-f]{16}$/,
    );
    const error = await nameFor(launchRequest(), { ...cluster, name: 'a/b' }).catch((e: unknown) => e);
    expect(isValidationError(error)).toBe(true);
    expect(String(error)).toContain('Cluster/a/b: name: cannot name launch templates');
  });
});
