import type {
  DescribePlacementGroupsCommandInput,
  DescribePlacementGroupsCommandOutput,
  InstanceTypeInfo,
  PlacementGroup,
  PlacementGroupState,
  PlacementStrategy,
  RequestLaunchTemplateData,
  SpreadLevel,
  Tag,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';
import type { LaunchCheckRefusal } from './fleet-launch-checks';
import { filtered } from './listing';

/** A placement group to seed. */
export interface PlacementGroupSeed {
  readonly name: string;
  readonly strategy: PlacementStrategy;
  /** Partition groups only. @default 2 */
  readonly partitionCount?: number;
  /** Spread groups only. @default 'rack' */
  readonly spreadLevel?: SpreadLevel;
  /** @default 'available' */
  readonly state?: PlacementGroupState;
  readonly tags?: readonly Tag[];
}

/** Where an instance of a placement group runs, as the fake's instances report it. */
export interface PlacedInstance {
  readonly groupName: string;
  readonly zone: string;
}

/** Running instances a rack-level spread group takes per Availability Zone. */
const SPREAD_INSTANCES_PER_ZONE = 7;

const PLACEMENT_GROUP_FILTERS = {
  'group-name': (g: PlacementGroup) => [g.GroupName],
  'group-arn': (g: PlacementGroup) => [g.GroupArn],
  state: (g: PlacementGroup) => [g.State],
  strategy: (g: PlacementGroup) => [g.Strategy],
  'spread-level': (g: PlacementGroup) => [g.SpreadLevel],
};

/**
 * The account's placement groups: DescribePlacementGroups, and the checks CreateFleet makes of a
 * launch template's Placement (the group exists, the instance type supports its strategy, a
 * partition number is within the group, a cluster group stays in the zone it is in use in, a
 * rack spread group holds seven instances per zone).
 */
export class Ec2PlacementGroups {
  private readonly groups = new Map<string, PlacementGroup>();

  constructor(private readonly context: Ec2Context) {}

  /** Creates a placement group, as CreatePlacementGroup would, and returns it. */
  add(seed: PlacementGroupSeed): PlacementGroup {
    const id = `pg-${this.context.hexId(17)}`;
    const { region, accountId } = this.context;
    const group: PlacementGroup = {
      GroupName: seed.name,
      GroupId: id,
      GroupArn: `arn:aws:ec2:${region}:${accountId}:placement-group/${seed.name}`,
      State: seed.state ?? 'available',
      Strategy: seed.strategy,
      ...(seed.strategy === 'partition' ? { PartitionCount: seed.partitionCount ?? 2 } : {}),
      ...(seed.strategy === 'spread' ? { SpreadLevel: seed.spreadLevel ?? 'rack' } : {}),
      Tags: [...(seed.tags ?? [])],
    };
    this.groups.set(id, group);
    return structuredClone(group);
  }

  /** Moves a group to another state, e.g. `deleted`. */
  setState(nameOrId: string, state: PlacementGroupState): void {
    const group = this.find(nameOrId);
    if (group === undefined) throw new Error(`FakeEc2 has no placement group ${nameOrId}`);
    (group as { State?: PlacementGroupState }).State = state;
  }

  /**
   * DescribePlacementGroups: a name or id EC2 does not know fails the whole call with
   * InvalidPlacementGroup.Unknown, as EC2 does, rather than answering an empty list.
   */
  describePlacementGroups(
    input: DescribePlacementGroupsCommandInput,
  ): OperationOutput<DescribePlacementGroupsCommandOutput> {
    const { fail } = this.context;
    const groups = [...this.groups.values()];
    for (const name of input.GroupNames ?? []) {
      if (!groups.some((g) => g.GroupName === name))
        throw fail('InvalidPlacementGroup.Unknown', `The Placement Group '${name}' is unknown.`);
    }
    for (const id of input.GroupIds ?? []) {
      if (!this.groups.has(id))
        throw fail('InvalidPlacementGroup.Unknown', `The Placement Group '${id}' is unknown.`);
    }
    const ids = input.GroupIds?.length ? new Set(input.GroupIds) : undefined;
    const names = input.GroupNames?.length ? new Set(input.GroupNames) : undefined;
    const selected = filtered(fail, groups, input.Filters, PLACEMENT_GROUP_FILTERS).filter(
      (g) => (ids === undefined || ids.has(g.GroupId!)) && (names === undefined || names.has(g.GroupName!)),
    );
    return { PlacementGroups: structuredClone(selected) };
  }

  /**
   * Why EC2 refuses to launch `info` in `zone` from a template with this Placement, or
   * undefined. `placed` lists where the live instances of each group run: a cluster group
   * holds one zone, and EC2 answers `InvalidPlacementGroup.InUse: The placement group '…' is in
   * use in another availability zone: …` for a launch elsewhere (hashicorp/terraform#16183).
   */
  refusal(
    data: RequestLaunchTemplateData,
    info: InstanceTypeInfo,
    zone: string,
    placed: readonly PlacedInstance[],
  ): LaunchCheckRefusal | undefined {
    const placement = data.Placement;
    const wanted = placement?.GroupId ?? placement?.GroupName;
    if (wanted === undefined || wanted === '') return undefined;
    const group = this.find(wanted);
    if (group === undefined || group.State !== 'available') {
      return {
        code: 'InvalidPlacementGroup.Unknown',
        message: `The Placement Group '${wanted}' is unknown.`,
      };
    }
    const strategies = info.PlacementGroupInfo?.SupportedStrategies ?? [];
    if (!strategies.includes(group.Strategy as never)) {
      return {
        code: 'InvalidParameterCombination',
        message: `The instance type ${info.InstanceType} is not supported in a ${group.Strategy} placement group.`,
      };
    }
    const partition = placement?.PartitionNumber;
    if (
      partition !== undefined &&
      (group.Strategy !== 'partition' || partition < 1 || partition > (group.PartitionCount ?? 0))
    ) {
      return {
        code: 'InvalidParameterValue',
        message: `Partition number ${partition} is invalid for placement group '${group.GroupName}'.`,
      };
    }
    if (group.Strategy === 'spread' && group.SpreadLevel !== 'host') {
      const inZone = placed.filter((p) => p.groupName === group.GroupName && p.zone === zone).length;
      if (inZone >= SPREAD_INSTANCES_PER_ZONE) {
        // The capacity code and message Karpenter's IsSpreadPlacementGroupLimitError matches.
        return {
          code: 'InsufficientInstanceCapacity',
          message:
            "You've reached the limit of instances in this spread placement group. A spread placement group can have up to seven instances per Availability Zone.",
        };
      }
    }
    if (group.Strategy === 'cluster') {
      const inUse = placed.find((p) => p.groupName === group.GroupName && p.zone !== zone);
      if (inUse !== undefined) {
        return {
          code: 'InvalidPlacementGroup.InUse',
          message: `The placement group '${group.GroupName}' is in use in another availability zone: ${inUse.zone}`,
        };
      }
    }
    return undefined;
  }

  /** The group a template's Placement names, by id or name. */
  find(nameOrId: string): PlacementGroup | undefined {
    return this.groups.get(nameOrId) ?? [...this.groups.values()].find((g) => g.GroupName === nameOrId);
  }
}
