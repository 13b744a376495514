import type {
  _InstanceType,
  CreateFleetCommandInput,
  CreateFleetCommandOutput,
  CreateFleetError,
  CreateFleetInstance,
  RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import { stableJson } from '../pagination';
import type { Ec2Context } from './context';
import { allocationOrder, type CapacityType, fleetErrorMessage, type Pool } from './fleet-capacity';
import {
  echoOverride,
  echoSpec,
  type FleetFamilies,
  type FleetPool,
  FleetPools,
  fleetError,
} from './fleet-pools';
import { FleetClientTokens } from './fleet-tokens';
import { WINDOWS_PLATFORM } from './images';
import type { InstanceLaunch } from './instance-launch';
import { mergeTags, tagsFor, validateTagSpecifications } from './tags';

/**
 * How CreateFleet answers for a launch template that does not exist: the whole request fails
 * with the NotFound error (`request`, what Karpenter users see as "creating fleet
 * InvalidLaunchTemplateName.NotFoundException: ...", aws/karpenter-provider-aws#1964), or each
 * of its overrides gets the error in the fleet's Errors[] (`fleet-errors`).
 */
export type MissingLaunchTemplateAnswer = 'request' | 'fleet-errors';

/**
 * CreateFleet of type `instant`: resolves every override to a capacity pool, tries the pools
 * in the allocation strategy's order, launches what capacity allows and reports one error per
 * pool that failed. A request repeated with the same ClientToken returns the first answer.
 */
export class Ec2Fleet {
  /** How a missing launch template is reported; see {@link MissingLaunchTemplateAnswer}. */
  missingLaunchTemplate: MissingLaunchTemplateAnswer = 'request';

  private readonly tokens: FleetClientTokens;
  private readonly pools: FleetPools;

  constructor(
    private readonly context: Ec2Context,
    private readonly families: FleetFamilies,
  ) {
    this.pools = new FleetPools(context, families);
    this.tokens = new FleetClientTokens(context, (id) => families.instances.endedAt(id));
  }

  createFleet(input: CreateFleetCommandInput): OperationOutput<CreateFleetCommandOutput> {
    const { ClientToken: token, ...request } = input;
    const fingerprint = stableJson(request);
    const previous = token === undefined ? undefined : this.tokens.recall(token, fingerprint);
    if (previous !== undefined) return previous;
    this.validate(input);
    const fleetId = `fleet-${this.context.uuid()}`;
    const errors: CreateFleetError[] = [];
    const launched: CreateFleetInstance[] = [];
    for (const [capacityType, units] of targetUnits(input)) {
      if (units <= 0) continue;
      const options = capacityType === 'spot' ? input.SpotOptions : input.OnDemandOptions;
      const pools = this.pools.resolvePools(input, capacityType, errors);
      const ordered = allocationOrder(pools, options?.AllocationStrategy ?? 'lowest-price');
      this.launchInto(ordered, units, options?.MinTargetCapacity, { input, fleetId, errors, launched });
    }
    const output = { FleetId: fleetId, Errors: errors, Instances: launched };
    if (token !== undefined) this.tokens.remember(token, fingerprint, output);
    return output;
  }

  private validate(input: CreateFleetCommandInput): void {
    const { fail } = this.context;
    if (input.Type !== 'instant') {
      throw new Error(
        `FakeEc2 models only instant fleets; CreateFleet was called with Type ${String(input.Type)}`,
      );
    }
    const total = input.TargetCapacitySpecification?.TotalTargetCapacity;
    if (total === undefined) {
      throw fail(
        'MissingParameter',
        'The request must contain the parameter TargetCapacitySpecification.TotalTargetCapacity',
      );
    }
    if (!Number.isInteger(total) || total < 1) {
      throw fail('InvalidParameterValue', `Invalid value '${total}' for TotalTargetCapacity`);
    }
    if ((input.LaunchTemplateConfigs ?? []).length === 0) {
      throw fail('MissingParameter', 'The request must contain the parameter LaunchTemplateConfigs');
    }
    // Tags are checked as for every tagging call: 50 per resource, key/value lengths, no `aws:`.
    validateTagSpecifications(input.TagSpecifications, fail);
    if (this.missingLaunchTemplate === 'request') {
      for (const config of input.LaunchTemplateConfigs ?? []) {
        const spec = config.LaunchTemplateSpecification ?? {};
        if (this.families.templates.find(spec) === undefined) throw this.families.templates.notFound(spec);
      }
    }
  }

  /**
   * Launches `units` of capacity over the pools in order, unless MinTargetCapacity cannot be
   * met, in which case nothing launches and the fleet reports UnfulfillableCapacity.
   */
  private launchInto(
    ordered: readonly FleetPool[],
    units: number,
    minTarget: number | undefined,
    out: FleetRun,
  ) {
    const { planned, poolErrors, remaining } = this.plan(ordered, units);
    const reached = units - Math.max(0, remaining);
    if (minTarget !== undefined && reached < minTarget) {
      out.errors.push(unfulfillable(ordered[0]));
      return;
    }
    out.errors.push(...poolErrors);
    for (const { pool, count } of planned) {
      const reservationId = `r-${this.context.hexId(17)}`;
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) ids.push(this.launchOne(pool, out, reservationId, i));
      out.launched.push({
        LaunchTemplateAndOverrides: {
          LaunchTemplateSpecification: echoSpec(pool.spec),
          Overrides: echoOverride(pool.override),
        },
        Lifecycle: pool.capacityType,
        InstanceIds: ids,
        InstanceType: pool.instanceType as _InstanceType,
      });
    }
  }

  /** How many instances each pool takes, bounded by capacity, the vCPU quota and free addresses. */
  private plan(ordered: readonly FleetPool[], units: number) {
    const planned: Array<{ pool: FleetPool; count: number }> = [];
    const poolErrors: CreateFleetError[] = [];
    let remaining = units;
    const pending = new Map<string, number>();
    for (const pool of ordered) {
      if (remaining <= 0) break;
      const injected = this.families.capacity.takeInjectedError(pool);
      if (injected !== undefined) {
        poolErrors.push(fleetError(pool.spec, pool.override, pool.capacityType, injected));
        continue;
      }
      const wanted = Math.ceil(remaining / pool.weight);
      const vcpus = pool.info.VCpuInfo?.DefaultVCpus ?? 1;
      const usedVcpus =
        this.families.instances.liveVcpus(pool.capacityType) + (pending.get(pool.capacityType) ?? 0);
      const byQuota = Math.floor((this.families.capacity.vcpuLimit(pool.capacityType) - usedVcpus) / vcpus);
      const byCapacity =
        this.pools.availableIn(pool) -
        planned.filter((p) => samePool(p.pool, pool)).reduce((n, p) => n + p.count, 0);
      const byAddresses =
        pool.subnet === undefined ? Infinity : (pool.subnet.subnet.AvailableIpAddressCount ?? 0);
      const count = Math.max(0, Math.min(wanted, byQuota, byCapacity, byAddresses));
      if (count > 0) {
        planned.push({ pool, count });
        remaining -= count * pool.weight;
        pending.set(pool.capacityType, (pending.get(pool.capacityType) ?? 0) + count * vcpus);
      }
      if (count < wanted) {
        const code = shortfallCode(pool.capacityType, Math.min(byQuota, byCapacity, byAddresses), {
          byQuota,
          byCapacity,
        });
        poolErrors.push(
          fleetError(pool.spec, pool.override, pool.capacityType, {
            code,
            message: fleetErrorMessage(code, pool),
          }),
        );
      }
    }
    return { planned, poolErrors, remaining };
  }

  private placementGroupOf(data: RequestLaunchTemplateData): Pick<InstanceLaunch, 'placementGroup'> {
    return placementGroupOfTemplate(
      this.families.placementGroups,
      data,
      this.families.instances.placed().length,
    );
  }

  private launchOne(pool: FleetPool, out: FleetRun, reservationId: string, launchIndex: number): string {
    const data = pool.template.data;
    const templateTags = (type: string) =>
      (data.TagSpecifications ?? []).filter((s) => s.ResourceType === type).flatMap((s) => s.Tags ?? []);
    const imageId = pool.override.ImageId ?? data.ImageId;
    const windows =
      imageId !== undefined && this.families.images.image(imageId)?.Platform === WINDOWS_PLATFORM;
    return this.families.instances.launch({
      ...pool,
      data,
      imageId,
      ...(windows ? { platform: 'windows' as const } : {}),
      launchIndex,
      reservationId,
      ...this.placementGroupOf(data),
      tags: mergeTags(mergeTags(templateTags('instance'), tagsFor(out.input.TagSpecifications, 'instance')), [
        { Key: 'aws:ec2:fleet-id', Value: out.fleetId },
        { Key: 'aws:ec2launchtemplate:id', Value: pool.template.template.LaunchTemplateId },
        { Key: 'aws:ec2launchtemplate:version', Value: pool.spec.Version ?? '1' },
      ]),
      volumeTags: mergeTags(templateTags('volume'), tagsFor(out.input.TagSpecifications, 'volume')),
    });
  }
}

/**
 * The placement group a template puts its instances in; a partition group without a partition
 * number gets one from EC2, spread over the partitions in launch order.
 */
function placementGroupOfTemplate(
  groups: FleetFamilies['placementGroups'],
  data: RequestLaunchTemplateData,
  launched: number,
): Pick<InstanceLaunch, 'placementGroup'> {
  const wanted = data.Placement?.GroupId ?? data.Placement?.GroupName;
  const group = wanted ? groups.find(wanted) : undefined;
  if (group === undefined) return {};
  const partition =
    group.Strategy !== 'partition'
      ? undefined
      : (data.Placement?.PartitionNumber ?? (launched % (group.PartitionCount ?? 1)) + 1);
  return {
    placementGroup: {
      name: group.GroupName ?? '',
      id: group.GroupId ?? '',
      ...(partition === undefined ? {} : { partition }),
    },
  };
}

/** What one CreateFleet call collects while it runs. */
interface FleetRun {
  readonly input: CreateFleetCommandInput;
  readonly fleetId: string;
  readonly errors: CreateFleetError[];
  readonly launched: CreateFleetInstance[];
}

/** Units of on-demand and of spot capacity the request asks for, on-demand first. */
function targetUnits(input: CreateFleetCommandInput): ReadonlyArray<readonly [CapacityType, number]> {
  const target = input.TargetCapacitySpecification!;
  const total = target.TotalTargetCapacity!;
  const spot =
    (target.DefaultTargetCapacityType ?? 'on-demand') === 'spot'
      ? total - (target.OnDemandTargetCapacity ?? 0)
      : (target.SpotTargetCapacity ?? 0);
  return [
    ['on-demand', total - spot],
    ['spot', spot],
  ];
}

/** The error code of the limit that stopped a pool short. */
function shortfallCode(
  capacityType: CapacityType,
  binding: number,
  limits: { readonly byQuota: number; readonly byCapacity: number },
): string {
  if (binding === limits.byQuota)
    return capacityType === 'spot' ? 'MaxSpotInstanceCountExceeded' : 'VcpuLimitExceeded';
  return binding === limits.byCapacity ? 'InsufficientInstanceCapacity' : 'InsufficientFreeAddressesInSubnet';
}

function unfulfillable(first: FleetPool | undefined): CreateFleetError {
  return {
    ...(first === undefined
      ? {}
      : {
          LaunchTemplateAndOverrides: {
            LaunchTemplateSpecification: echoSpec(first.spec),
            Overrides: echoOverride(first.override),
          },
        }),
    Lifecycle: first?.capacityType,
    ErrorCode: 'UnfulfillableCapacity',
    ErrorMessage: fleetErrorMessage(
      'UnfulfillableCapacity',
      first ?? { instanceType: '', availabilityZone: '', capacityType: 'spot' },
    ),
  };
}

function samePool(a: Pool, b: Pool): boolean {
  return (
    a.instanceType === b.instanceType &&
    a.availabilityZone === b.availabilityZone &&
    a.capacityType === b.capacityType
  );
}
