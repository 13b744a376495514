import type {
  ConnectionTrackingSpecificationRequest,
  LaunchTemplateBlockDeviceMappingRequest,
  LaunchTemplateInstanceNetworkInterfaceSpecificationRequest,
  LaunchTemplateTagSpecificationRequest,
  RequestLaunchTemplateData,
  VolumeType,
} from '@aws-sdk/client-ec2';
import type { CapacityType } from '../../core/model/capacity-type';
import type { AmiFamily, BlockDeviceMapping, EC2NodeClass } from '../../core/model/ec2nodeclass';
import type { EC2NodeClassStatus } from '../../core/model/ec2nodeclass-status';
import { NotFoundError, ValidationError } from '../../core/model/errors';
import { LABEL_NODECLASS, LABEL_NODEPOOL, LABEL_PLACEMENT_GROUP_PARTITION } from '../../core/model/labels';
import { isQuantity, parseQuantity } from '../../core/model/quantity';
import type { NodeSelectorRequirement } from '../../core/model/requirements';
import type { LaunchReservation } from '../../core/ports/cloud';

/** The tag that marks launch templates (and instances) as belonging to a cluster's provisioner. */
export const TAG_MANAGED_BY_CLUSTER = 'karpenter.k8s.aws/cluster';

/** What a launch template is created with: its data and its own tags. */
export interface LaunchTemplateContent {
  readonly data: RequestLaunchTemplateData;
  readonly tags: Readonly<Record<string, string>>;
}

/** The inputs of one launch template. */
export interface LaunchTemplateInput {
  readonly cluster: string;
  readonly nodeClass: EC2NodeClass;
  readonly nodePoolName: string;
  readonly resolved: EC2NodeClassStatus;
  readonly imageId: string;
  /** What the launches with this template buy: spot templates also tag the spot requests. */
  readonly capacityType: CapacityType;
  /** Base64 user data; none for a Custom family without userData. */
  readonly userData?: string;
  /**
   * EC2 tenancy of the launch, from the NodeClaim's karpenter.k8s.aws/instance-tenancy
   * requirement ({@link launchTenancy}).
   * @default 'default'
   */
  readonly tenancy?: 'default' | 'dedicated';
  /**
   * The partition of a partition placement group to launch into, from the NodeClaim's
   * karpenter.k8s.aws/placement-group-partition requirement ({@link launchPartition}); none lets
   * EC2 pick one.
   */
  readonly partition?: number;
  /** The reservation a `reserved` launch goes into: the template targets it. */
  readonly capacityReservation?: LaunchReservation;
  /**
   * Karpenter's LaunchModeTargeted (the ReservedCapacity gate on): a template of an on-demand or
   * spot launch says `CapacityReservationPreference: none`, so EC2 does not put it in an `open`
   * reservation the scheduler counts on. @default false (LaunchModeOpen: EC2's default, `open`)
   */
  readonly targeted?: boolean;
}

/**
 * The partition a NodeClaim launches into (Karpenter's launchtemplate.go EnsureAll): for a
 * partition placement group, the lowest value its placement-group-partition `In` requirement
 * allows within the group, EC2 taking a single number; none without such a requirement or for
 * another strategy (EC2 then picks one).
 */
export function launchPartition(
  group: EC2NodeClassStatus['placementGroup'],
  requirements: readonly NodeSelectorRequirement[],
): number | undefined {
  const allowed = requirements.find(
    (r) => r.key === LABEL_PLACEMENT_GROUP_PARTITION && r.operator === 'In',
  )?.values;
  if (group?.strategy !== 'partition' || allowed === undefined) return undefined;
  const numbers = allowed
    .map(Number)
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= (group.partitionCount ?? Infinity))
    .sort((a, b) => a - b);
  return numbers[0];
}

/**
 * The template's Placement (Karpenter's types.go buildPlacement): dedicated tenancy when asked
 * for, and the resolved placement group by id with the partition, if any. Nothing when neither
 * applies: default tenancy is what EC2 does without it, and templates made before tenancy and
 * placement groups were honoured keep their names.
 */
function placement(input: LaunchTemplateInput): Pick<RequestLaunchTemplateData, 'Placement'> {
  const group = input.resolved.placementGroup;
  if (input.tenancy !== 'dedicated' && group === undefined) return {};
  return {
    Placement: {
      ...(input.tenancy === 'dedicated' ? { Tenancy: 'dedicated' } : {}),
      ...(group === undefined ? {} : { GroupId: group.id }),
      ...(group !== undefined && input.partition !== undefined ? { PartitionNumber: input.partition } : {}),
    },
  };
}

/**
 * The tenancy a NodeClaim launches with (Karpenter's instance.go getTenancyType): default when
 * its requirements allow it or say nothing, dedicated only when they allow nothing else.
 */
export function launchTenancy(allows: (tenancy: string) => boolean): 'default' | 'dedicated' {
  return !allows('default') && allows('dedicated') ? 'dedicated' : 'default';
}

const GiB = 1024 ** 3;

const DEFAULT_EBS = { volumeType: 'gp3', encrypted: true } as const;

/**
 * Karpenter's default block devices per AMI family (amifamily/*.go DefaultBlockDeviceMappings):
 * AL2 and AL2023 a 20Gi gp3 root on /dev/xvda; Bottlerocket a 4Gi OS volume on /dev/xvda and a
 * 20Gi data volume on /dev/xvdb; Windows a 50Gi root on /dev/sda1; Custom none (the AMI's own).
 */
export function defaultBlockDeviceMappings(family: AmiFamily): readonly BlockDeviceMapping[] {
  switch (family) {
    case 'AL2':
    case 'AL2023':
      return [{ deviceName: '/dev/xvda', ebs: { ...DEFAULT_EBS, volumeSize: '20Gi' } }];
    case 'Bottlerocket':
      return [
        { deviceName: '/dev/xvda', ebs: { ...DEFAULT_EBS, volumeSize: '4Gi' } },
        { deviceName: '/dev/xvdb', ebs: { ...DEFAULT_EBS, volumeSize: '20Gi' } },
      ];
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return [{ deviceName: '/dev/sda1', ebs: { ...DEFAULT_EBS, volumeSize: '50Gi' } }];
    case 'Custom':
      return [];
  }
}

/**
 * The tags Karpenter gives what a launch template makes (utils.go GetTags): the EC2NodeClass's
 * tags, then the ones it always sets, which win: `kubernetes.io/cluster/<cluster>: owned`,
 * `eks:eks-cluster-name`, `karpenter.sh/nodepool` and `karpenter.k8s.aws/ec2nodeclass`.
 */
export function nodeClassResourceTags(
  cluster: string,
  nodeClass: EC2NodeClass,
  nodePoolName: string,
): Record<string, string> {
  return {
    ...nodeClass.tags,
    [`kubernetes.io/cluster/${cluster}`]: 'owned',
    'eks:eks-cluster-name': cluster,
    [LABEL_NODEPOOL]: nodePoolName,
    [LABEL_NODECLASS]: nodeClass.name,
  };
}

/**
 * The tags of a launch template itself: {@link nodeClassResourceTags} and
 * `karpenter.k8s.aws/cluster`, what {@link TAG_MANAGED_BY_CLUSTER} garbage collection looks for.
 */
export function launchTemplateTags(
  cluster: string,
  nodeClass: EC2NodeClass,
  nodePoolName: string,
): Record<string, string> {
  return { ...nodeClassResourceTags(cluster, nodeClass, nodePoolName), [TAG_MANAGED_BY_CLUSTER]: cluster };
}

/**
 * What the template tags when it launches (Karpenter's CreateLaunchTemplateInputBuilder.Build in
 * launchtemplate/types.go): the network interfaces always, and the spot instance requests of
 * spot launches, so both can be traced to the cluster and EC2NodeClass. Instances and volumes
 * are tagged by CreateFleet, which knows the NodeClaim.
 */
function launchedResourceTags(input: LaunchTemplateInput): LaunchTemplateTagSpecificationRequest[] {
  const tags = Object.entries(nodeClassResourceTags(input.cluster, input.nodeClass, input.nodePoolName)).map(
    ([Key, Value]) => ({ Key, Value }),
  );
  return [
    { ResourceType: 'network-interface', Tags: tags },
    ...(input.capacityType === 'spot'
      ? [{ ResourceType: 'spot-instances-request' as const, Tags: tags }]
      : []),
  ];
}

/**
 * The launch template data Karpenter creates (launchtemplate.go createLaunchTemplate): image,
 * user data, instance profile, security groups, IMDS options (instance tags in IMDS always
 * disabled), block devices, detailed monitoring, tags for the network interfaces and spot
 * requests it makes, CPU options (nested virtualization), dedicated tenancy when the NodeClaim
 * asks for it, the resolved placement group (and partition), and network interfaces when the EC2NodeClass lists them or sets
 * associatePublicIPAddress, ipPrefixCount or connectionTracking (the security groups then go on
 * the interfaces, as EC2 requires). Instance tags are left to CreateFleet.
 *
 * @throws NotFoundError when the EC2NodeClass resolved no security group or instance profile
 * @throws ValidationError when a block device's volumeSize is not a quantity
 */
export function launchTemplateContent(input: LaunchTemplateInput): LaunchTemplateContent {
  const { nodeClass, resolved } = input;
  const groups = resolved.securityGroups.map((g) => g.id).sort();
  if (groups.length === 0) {
    throw new NotFoundError(
      `EC2NodeClass/${nodeClass.name} security groups`,
      `EC2NodeClass ${nodeClass.name} resolved no security group: check spec.securityGroupSelectorTerms`,
    );
  }
  const profile = resolved.instanceProfile ?? nodeClass.instanceProfile;
  if (profile === undefined) {
    throw new NotFoundError(
      `EC2NodeClass/${nodeClass.name} instance profile`,
      `EC2NodeClass ${nodeClass.name} has no instance profile yet: set spec.instanceProfile, or wait for the one made for spec.role ${nodeClass.role ?? ''}`.trimEnd(),
    );
  }
  const mappings =
    nodeClass.blockDeviceMappings.length > 0
      ? nodeClass.blockDeviceMappings
      : defaultBlockDeviceMappings(nodeClass.amiFamily);
  const interfaces = networkInterfaces(nodeClass, groups);
  const metadata = nodeClass.metadataOptions;
  const data: RequestLaunchTemplateData = {
    ImageId: input.imageId,
    ...(input.userData ? { UserData: input.userData } : {}),
    IamInstanceProfile: { Name: profile },
    ...(interfaces === undefined ? { SecurityGroupIds: groups } : { NetworkInterfaces: interfaces }),
    ...(nodeClass.cpuOptions?.nestedVirtualization !== undefined
      ? { CpuOptions: { NestedVirtualization: nodeClass.cpuOptions.nestedVirtualization } }
      : {}),
    ...placement(input),
    MetadataOptions: {
      HttpEndpoint: metadata.httpEndpoint,
      HttpProtocolIpv6: metadata.httpProtocolIPv6,
      HttpPutResponseHopLimit: metadata.httpPutResponseHopLimit,
      HttpTokens: metadata.httpTokens,
      // Always disabled, as Karpenter sets it: an account default of `enabled` would otherwise
      // apply, and instance tags in IMDS cannot hold keys with `/` (kubernetes.io/cluster/...,
      // karpenter.sh/nodepool), so every launch would fail.
      InstanceMetadataTags: 'disabled',
    },
    ...(mappings.length > 0
      ? { BlockDeviceMappings: mappings.map((m, i) => blockDeviceMapping(nodeClass.name, m, i)) }
      : {}),
    Monitoring: { Enabled: nodeClass.detailedMonitoring },
    TagSpecifications: launchedResourceTags(input),
    ...reservationTarget(input.capacityReservation, input.targeted ?? false),
  };
  return { data, tags: launchTemplateTags(input.cluster, nodeClass, input.nodePoolName) };
}

/**
 * A reserved launch's template targets its reservation, only (`capacity-reservations-only`), and
 * with LaunchModeTargeted any other launch's opts out of reservations (`none`);
 * a Capacity Block's has market type `capacity-block` (an interruptible reservation's
 * `interruptible-capacity-reservation`), as aws/karpenter-provider-aws pkg/providers/
 * launchtemplate/types.go `Build` writes them for LaunchModeTargeted.
 */
function reservationTarget(
  reservation: LaunchReservation | undefined,
  targeted: boolean,
): Pick<RequestLaunchTemplateData, 'CapacityReservationSpecification' | 'InstanceMarketOptions'> {
  if (reservation === undefined)
    return targeted ? { CapacityReservationSpecification: { CapacityReservationPreference: 'none' } } : {};
  const marketType =
    reservation.type === 'capacity-block'
      ? 'capacity-block'
      : reservation.interruptible
        ? 'interruptible-capacity-reservation'
        : undefined;
  return {
    CapacityReservationSpecification: {
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: reservation.id },
    },
    ...(marketType === undefined ? {} : { InstanceMarketOptions: { MarketType: marketType } }),
  };
}

/**
 * The network interfaces of the template (Karpenter's generateNetworkInterfaces), or undefined
 * when the security groups can go on the instance: the EC2NodeClass's networkInterfaces, each
 * with the security groups, and for every one but efa-only interfaces its public IP, prefix count
 * and connection tracking (EC2 refuses those on efa-only ones); else one primary interface when
 * associatePublicIPAddress, ipPrefixCount or connectionTracking needs it.
 */
function networkInterfaces(
  nodeClass: EC2NodeClass,
  groups: string[],
): LaunchTemplateInstanceNetworkInterfaceSpecificationRequest[] | undefined {
  const tracking = connectionTracking(nodeClass.connectionTracking);
  const ipSettings = withoutUndefined({
    AssociatePublicIpAddress: nodeClass.associatePublicIPAddress,
    Ipv4PrefixCount: nodeClass.ipPrefixCount,
    ConnectionTrackingSpecification: tracking,
  });
  if ((nodeClass.networkInterfaces?.length ?? 0) > 0) {
    return nodeClass.networkInterfaces!.map((ni) => ({
      NetworkCardIndex: ni.networkCardIndex,
      DeviceIndex: ni.deviceIndex,
      InterfaceType: ni.interfaceType,
      Groups: groups,
      ...(ni.interfaceType === 'efa-only' ? {} : ipSettings),
    }));
  }
  if (Object.keys(ipSettings).length === 0) return undefined;
  return [{ DeviceIndex: 0, Groups: groups, ...ipSettings }];
}

/** spec.connectionTracking as EC2's ConnectionTrackingSpecificationRequest. */
function connectionTracking(
  ct: EC2NodeClass['connectionTracking'],
): ConnectionTrackingSpecificationRequest | undefined {
  if (ct === undefined) return undefined;
  const spec = withoutUndefined({
    TcpEstablishedTimeout: ct.tcpEstablishedTimeout,
    UdpStreamTimeout: ct.udpStreamTimeout,
    UdpTimeout: ct.udpTimeout,
  });
  return Object.keys(spec).length > 0 ? spec : undefined;
}

function blockDeviceMapping(
  nodeClassName: string,
  mapping: BlockDeviceMapping,
  index: number,
): LaunchTemplateBlockDeviceMappingRequest {
  const ebs = mapping.ebs;
  if (ebs === undefined) return { DeviceName: mapping.deviceName };
  return {
    DeviceName: mapping.deviceName,
    Ebs: withoutUndefined({
      DeleteOnTermination: ebs.deleteOnTermination,
      Encrypted: ebs.encrypted,
      VolumeType: ebs.volumeType as VolumeType | undefined,
      Iops: ebs.iops,
      Throughput: ebs.throughput,
      KmsKeyId: ebs.kmsKeyID,
      SnapshotId: ebs.snapshotID,
      VolumeSize: ebs.volumeSize === undefined ? undefined : volumeGiB(nodeClassName, ebs.volumeSize, index),
      VolumeInitializationRate: ebs.volumeInitializationRate,
    }),
  };
}

/** The object without its undefined members, so equal settings hash and compare equal. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A volume size in whole GiB, rounded up as Karpenter does. */
function volumeGiB(nodeClassName: string, size: string, index: number): number {
  if (!isQuantity(size)) {
    throw new ValidationError(
      [
        {
          field: `spec.blockDeviceMappings[${index}].ebs.volumeSize`,
          value: size,
          message: 'not a Kubernetes quantity',
        },
      ],
      { object: `EC2NodeClass/${nodeClassName}` },
    );
  }
  return Math.ceil(Number(parseQuantity(size)) / GiB);
}
