import type {
  DescribeSecurityGroupsCommandInput,
  DescribeSecurityGroupsCommandOutput,
  DescribeSubnetsCommandInput,
  DescribeSubnetsCommandOutput,
  SecurityGroup,
  Subnet,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';
import { type FilterFields, flag } from './filters';
import { filtered, PAGES, page } from './listing';
import { type TagRecord, tagList } from './tags';

/** A subnet to seed. */
export interface SubnetSeed {
  /** @default generated */
  readonly id?: string;
  /** @default the fake's default VPC */
  readonly vpcId?: string;
  readonly availabilityZone: string;
  /** @default a /20 in 10.0.0.0/16 chosen by seeding order */
  readonly cidrBlock?: string;
  /** @default the addresses of the CIDR block minus the 5 AWS reserves */
  readonly availableIpAddressCount?: number;
  readonly tags?: TagRecord;
}

/** A security group to seed. */
export interface SecurityGroupSeed {
  /** @default generated */
  readonly id?: string;
  readonly name: string;
  /** @default the fake's default VPC */
  readonly vpcId?: string;
  /** @default the name */
  readonly description?: string;
  readonly tags?: TagRecord;
}

/** A subnet and the next host address it hands out. */
export interface SubnetRecord {
  readonly subnet: Subnet;
  nextHost: number;
}

const SUBNET_FILTERS: FilterFields<Subnet> = {
  'subnet-id': (s) => [s.SubnetId],
  'vpc-id': (s) => [s.VpcId],
  'availability-zone': (s) => [s.AvailabilityZone],
  'availability-zone-id': (s) => [s.AvailabilityZoneId],
  'cidr-block': (s) => [s.CidrBlock],
  'default-for-az': (s) => [flag(s.DefaultForAz)],
  'owner-id': (s) => [s.OwnerId],
  state: (s) => [s.State],
};

const SECURITY_GROUP_FILTERS: FilterFields<SecurityGroup> = {
  'group-id': (g) => [g.GroupId],
  'group-name': (g) => [g.GroupName],
  'vpc-id': (g) => [g.VpcId],
  description: (g) => [g.Description],
  'owner-id': (g) => [g.OwnerId],
};

/**
 * The account's network in the region: subnets (with the addresses instances take and give
 * back) and security groups, all in VPCs that are only ids.
 */
export class Ec2Network {
  private readonly subnets = new Map<string, SubnetRecord>();
  private readonly securityGroups = new Map<string, SecurityGroup>();

  constructor(private readonly context: Ec2Context) {}

  addSubnet(seed: SubnetSeed): Subnet {
    const { region, accountId } = this.context;
    const index = this.subnets.size;
    const cidrBlock = seed.cidrBlock ?? `10.0.${index * 16}.0/20`;
    const prefix = Number(cidrBlock.split('/')[1] ?? 20);
    const subnet: Subnet = {
      SubnetId: seed.id ?? `subnet-${this.context.hexId(17)}`,
      VpcId: seed.vpcId ?? this.context.defaultVpcId,
      AvailabilityZone: seed.availabilityZone,
      AvailabilityZoneId: this.context.zoneId(seed.availabilityZone),
      CidrBlock: cidrBlock,
      AvailableIpAddressCount: seed.availableIpAddressCount ?? 2 ** (32 - prefix) - 5,
      State: 'available',
      DefaultForAz: false,
      MapPublicIpOnLaunch: false,
      OwnerId: accountId,
      Tags: tagList(seed.tags),
    };
    subnet.SubnetArn = `arn:aws:ec2:${region}:${accountId}:subnet/${subnet.SubnetId}`;
    this.subnets.set(subnet.SubnetId!, { subnet, nextHost: 4 });
    return structuredClone(subnet);
  }

  addSecurityGroup(seed: SecurityGroupSeed): SecurityGroup {
    const { region, accountId } = this.context;
    const group: SecurityGroup = {
      GroupId: seed.id ?? `sg-${this.context.hexId(17)}`,
      GroupName: seed.name,
      Description: seed.description ?? seed.name,
      VpcId: seed.vpcId ?? this.context.defaultVpcId,
      OwnerId: accountId,
      IpPermissions: [],
      IpPermissionsEgress: [],
      Tags: tagList(seed.tags),
    };
    group.SecurityGroupArn = `arn:aws:ec2:${region}:${accountId}:security-group/${group.GroupId}`;
    this.securityGroups.set(group.GroupId!, group);
    return structuredClone(group);
  }

  subnet(id: string): SubnetRecord | undefined {
    return this.subnets.get(id);
  }

  securityGroup(id: string): SecurityGroup | undefined {
    return this.securityGroups.get(id);
  }

  /** Takes the subnet's next free address. */
  allocateAddress(record: SubnetRecord): string {
    const [base = '10.0.0.0'] = (record.subnet.CidrBlock ?? '10.0.0.0/20').split('/');
    const host = record.nextHost;
    record.nextHost += 1;
    record.subnet.AvailableIpAddressCount = Math.max(0, (record.subnet.AvailableIpAddressCount ?? 0) - 1);
    const octets = base.split('.').map(Number);
    const value = (((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0) + host;
    return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  }

  /** Gives an address back to the subnet (addresses are counted, not reused). */
  releaseAddress(subnetId: string | undefined): void {
    const record = subnetId === undefined ? undefined : this.subnets.get(subnetId);
    if (record !== undefined)
      record.subnet.AvailableIpAddressCount = (record.subnet.AvailableIpAddressCount ?? 0) + 1;
  }

  describeSubnets(input: DescribeSubnetsCommandInput): OperationOutput<DescribeSubnetsCommandOutput> {
    const { fail } = this.context;
    const missing = (input.SubnetIds ?? []).filter((id) => !this.subnets.has(id));
    if (missing.length > 0)
      throw fail('InvalidSubnetID.NotFound', `The subnet ID '${missing.join(', ')}' does not exist`);
    const wanted = input.SubnetIds === undefined ? undefined : new Set(input.SubnetIds);
    const subnets = filtered(
      fail,
      [...this.subnets.values()].map((r) => r.subnet),
      input.Filters,
      SUBNET_FILTERS,
    ).filter((s) => wanted === undefined || wanted.has(s.SubnetId!));
    const listed = page(fail, subnets, input, PAGES.resources, 'DescribeSubnets');
    return { Subnets: listed.items, NextToken: listed.nextToken };
  }

  describeSecurityGroups(
    input: DescribeSecurityGroupsCommandInput,
  ): OperationOutput<DescribeSecurityGroupsCommandOutput> {
    const { fail, defaultVpcId } = this.context;
    const groups = [...this.securityGroups.values()];
    for (const id of input.GroupIds ?? []) {
      if (!this.securityGroups.has(id))
        throw fail('InvalidGroup.NotFound', `The security group '${id}' does not exist`);
    }
    for (const name of input.GroupNames ?? []) {
      if (!groups.some((g) => g.GroupName === name && g.VpcId === defaultVpcId)) {
        throw fail(
          'InvalidGroup.NotFound',
          `The security group '${name}' does not exist in default VPC '${defaultVpcId}'`,
        );
      }
    }
    const ids = input.GroupIds === undefined ? undefined : new Set(input.GroupIds);
    const names = input.GroupNames === undefined ? undefined : new Set(input.GroupNames);
    const selected = filtered(fail, groups, input.Filters, SECURITY_GROUP_FILTERS).filter(
      (g) => (ids === undefined || ids.has(g.GroupId!)) && (names === undefined || names.has(g.GroupName!)),
    );
    const listed = page(fail, selected, input, PAGES.resources, 'DescribeSecurityGroups');
    return { SecurityGroups: listed.items, NextToken: listed.nextToken };
  }
}
