import {
  DescribeInstancesCommand,
  type DescribeInstancesCommandOutput,
  type EC2Client,
  type Filter,
  type Instance,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import type { CapacityType } from '../../core/model/capacity-type';
import { CloudError, ValidationError } from '../../core/model/errors';
import { LABEL_NODEPOOL } from '../../core/model/labels';
import { providerID } from '../../core/model/nodeclaim';
import type { CloudInstance, InstanceHealthReport, InstanceInventoryPort } from '../../core/ports/cloud';
import { awsErrorCode, cloudErrorFrom, errorMessage } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';
import { describeUnhealthyInstances } from './instance-status';
import { clusterTagKey, TAG_NODECLAIM } from './launch-tags';

/** An instance as podlift reads it back from EC2 (the core's {@link CloudInstance}). */
export type Ec2Instance = CloudInstance;

/** States of instances that exist or may come back: everything but terminated (Karpenter's filter). */
export const LIVE_INSTANCE_STATES: readonly string[] = [
  'pending',
  'running',
  'stopping',
  'stopped',
  'shutting-down',
];

/** DescribeInstances page size (its maximum). */
const DEFAULT_PAGE_SIZE = 1000;
/** Values per filter EC2 accepts. */
const MAX_FILTER_VALUES = 200;
/** Instance ids per TerminateInstances call (Karpenter's batcher uses 500). */
const TERMINATE_BATCH = 500;

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

/** Options of {@link Ec2Instances}. */
export interface Ec2InstancesOptions {
  readonly ec2: EC2Client;
  readonly cluster: string;
  readonly retry: RetryPolicy;
  /** DescribeInstances and DescribeInstanceStatus MaxResults (5..1000). @default 1000 */
  readonly pageSize?: number;
}

/** Describing and terminating the cluster's instances. */
export class Ec2Instances implements InstanceInventoryPort {
  constructor(private readonly options: Ec2InstancesOptions) {}

  /** The instances with these ids that EC2 still shows (terminated ones included); unknown ids are left out. */
  async describe(ids: readonly string[]): Promise<Ec2Instance[]> {
    checkIds(ids, 'describing instances');
    const out: Ec2Instance[] = [];
    for (const chunk of chunks([...new Set(ids)], MAX_FILTER_VALUES)) {
      out.push(...(await this.list([{ Name: 'instance-id', Values: chunk }], 'describing instances')));
    }
    return out;
  }

  /**
   * Every instance of the cluster podlift (or Karpenter) launched that is not terminated:
   * tagged `kubernetes.io/cluster/<cluster>=owned` and carrying a `karpenter.sh/nodepool` tag
   * (managed node groups carry the cluster tag too, and must be left alone). For garbage collection.
   */
  async listClusterInstances(): Promise<Ec2Instance[]> {
    return this.list(
      [
        { Name: `tag:${clusterTagKey(this.options.cluster)}`, Values: ['owned'] },
        { Name: 'tag-key', Values: [LABEL_NODEPOOL] },
        { Name: 'instance-state-name', Values: [...LIVE_INSTANCE_STATES] },
      ],
      `listing the instances of cluster ${this.options.cluster}`,
    );
  }

  /**
   * The instances launched for a NodeClaim, found by its tags, earliest first: those in
   * `states`, or all that EC2 still shows (terminated ones included) when `states` is omitted.
   */
  async listByNodeClaim(nodeClaim: string, states?: readonly string[]): Promise<Ec2Instance[]> {
    const found = await this.list(
      [
        { Name: `tag:${clusterTagKey(this.options.cluster)}`, Values: ['owned'] },
        { Name: `tag:${TAG_NODECLAIM}`, Values: [nodeClaim] },
        ...(states === undefined ? [] : [{ Name: 'instance-state-name', Values: [...states] }]),
      ],
      `looking up the instances of NodeClaim ${nodeClaim}`,
    );
    return found.sort((a, b) => (a.launchTime ?? 0) - (b.launchTime ?? 0) || (a.id < b.id ? -1 : 1));
  }

  /**
   * Terminates the instances; ones EC2 no longer knows count as terminated. EC2 rejects a whole
   * TerminateInstances call when one id is unknown, so such a batch is retried id by id.
   */
  async terminate(ids: readonly string[]): Promise<void> {
    checkIds(ids, 'terminating instances');
    for (const chunk of chunks([...new Set(ids)], TERMINATE_BATCH)) {
      try {
        await this.terminateCall(chunk);
      } catch (error) {
        if (awsErrorCode(error) !== 'InvalidInstanceID.NotFound') throw this.cloudErrorFrom(chunk, error);
        if (chunk.length === 1) continue;
        for (const id of chunk) {
          try {
            await this.terminateCall([id]);
          } catch (single) {
            if (awsErrorCode(single) !== 'InvalidInstanceID.NotFound')
              throw this.cloudErrorFrom([id], single);
          }
        }
      }
    }
  }

  /** The region's impaired instances and those with a scheduled event (see instance-status.ts). */
  unhealthyInstances(): Promise<InstanceHealthReport[]> {
    return describeUnhealthyInstances(this.options.ec2, this.options.retry, this.options.pageSize);
  }

  private terminateCall(ids: readonly string[]): Promise<unknown> {
    return withRetry(
      `terminating ${describeIds(ids)}`,
      () => this.options.ec2.send(new TerminateInstancesCommand({ InstanceIds: [...ids] })),
      this.options.retry,
    );
  }

  private cloudErrorFrom(ids: readonly string[], error: unknown): CloudError {
    if (error instanceof CloudError) return error;
    const code = awsErrorCode(error);
    return new CloudError(
      `terminating ${describeIds(ids)}: ${code ?? 'error'}: ${errorMessage(error)}`,
      code,
      false,
      { cause: error },
    );
  }

  private async list(filters: Filter[], what: string): Promise<Ec2Instance[]> {
    const out: Ec2Instance[] = [];
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      const page = await this.describePage(filters, token, what);
      for (const reservation of page.Reservations ?? [])
        for (const instance of reservation.Instances ?? []) out.push(toEc2Instance(instance));
      nextToken = page.NextToken === '' ? undefined : page.NextToken;
      // A token handed back unchanged would page forever.
      if (nextToken !== undefined && nextToken === token)
        throw new CloudError(`${what}: the same NextToken came back twice`, undefined, true);
    } while (nextToken !== undefined);
    return out;
  }

  private async describePage(
    filters: Filter[],
    token: string | undefined,
    what: string,
  ): Promise<DescribeInstancesCommandOutput> {
    try {
      return await withRetry(
        what,
        () =>
          this.options.ec2.send(
            new DescribeInstancesCommand({
              Filters: filters,
              MaxResults: this.options.pageSize ?? DEFAULT_PAGE_SIZE,
              ...(token === undefined ? {} : { NextToken: token }),
            }),
          ),
        this.options.retry,
      );
    } catch (error) {
      // Retryable failures already came back from withRetry as CloudErrors.
      throw cloudErrorFrom(what, error);
    }
  }
}

/** The domain view of an SDK instance. */
export function toEc2Instance(instance: Instance): Ec2Instance {
  const tags: Record<string, string> = {};
  for (const tag of instance.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  const id = instance.InstanceId ?? '';
  const zone = instance.Placement?.AvailabilityZone ?? '';
  const nodeClaim = tags[TAG_NODECLAIM];
  const nodePool = tags[LABEL_NODEPOOL];
  return {
    id,
    instanceType: instance.InstanceType ?? '',
    zone,
    state: instance.State?.Name ?? 'unknown',
    capacityType: capacityTypeOf(instance),
    ...(capacityTypeOf(instance) === 'reserved'
      ? { capacityReservationId: instance.CapacityReservationId! }
      : {}),
    ...(instance.LaunchTime === undefined ? {} : { launchTime: instance.LaunchTime.getTime() }),
    ...(instance.PrivateDnsName ? { privateDnsName: instance.PrivateDnsName } : {}),
    ...(instance.ImageId === undefined ? {} : { imageId: instance.ImageId }),
    ...(instance.SubnetId ? { subnetId: instance.SubnetId } : {}),
    ...(instance.SecurityGroups === undefined
      ? {}
      : { securityGroupIds: instance.SecurityGroups.flatMap((g) => (g.GroupId ? [g.GroupId] : [])) }),
    ...(instance.Placement?.PartitionNumber === undefined
      ? {}
      : { partitionNumber: instance.Placement.PartitionNumber }),
    tags,
    providerID: providerID(zone, id),
    ...(nodeClaim === undefined ? {} : { nodeClaim }),
    ...(nodePool === undefined ? {} : { nodePool }),
  };
}

/**
 * spot for a spot instance; reserved for one launched into a reservation it targeted
 * (`capacity-reservations-only`); else on-demand, as aws/karpenter-provider-aws
 * pkg/providers/instance/types.go `capacityTypeFromInstance` reads it. (Karpenter also asks for
 * the ReservedCapacity gate; podlift never targets a reservation with the gate off.)
 */
function capacityTypeOf(instance: Instance): CapacityType {
  if (instance.InstanceLifecycle === 'spot' || instance.SpotInstanceRequestId !== undefined) return 'spot';
  if (
    instance.CapacityReservationId !== undefined &&
    instance.CapacityReservationSpecification?.CapacityReservationPreference === 'capacity-reservations-only'
  )
    return 'reserved';
  return 'on-demand';
}

function checkIds(ids: readonly string[], what: string): void {
  const bad = ids.filter((id) => !INSTANCE_ID.test(id));
  if (bad.length > 0) {
    throw new ValidationError(
      bad.map((value) => ({ field: 'instanceIds', value, message: 'not an EC2 instance id (i-<hex>)' })),
      { source: what },
    );
  }
}

function describeIds(ids: readonly string[]): string {
  return ids.length === 1 ? `instance ${ids[0]}` : `${ids.length} instances (${ids.slice(0, 3).join(', ')}…)`;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
