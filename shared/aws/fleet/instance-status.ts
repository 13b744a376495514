import {
  DescribeInstanceStatusCommand,
  type DescribeInstanceStatusCommandOutput,
  type EC2Client,
  type Filter,
  type InstanceStatus,
  type InstanceStatusDetails,
} from '@aws-sdk/client-ec2';
import { CloudError } from '../../core/model/errors';
import type {
  InstanceHealthReport,
  InstanceStatusCategory,
  InstanceStatusCheck,
} from '../../core/ports/cloud';
import { cloudErrorFrom } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';

/**
 * DescribeInstanceStatus as aws/karpenter-provider-aws pkg/providers/instancestatus/
 * instancestatus.go `DefaultProvider.List` calls it: EC2 ANDs filters of different names, so
 * the three ways an instance can be unhealthy are three listings — instance status impaired,
 * system status impaired, a scheduled event with one of the five codes Karpenter acts on — whose
 * instances are merged by id. EBS status is not queried (Karpenter ignores it). Without
 * IncludeAllInstances EC2 reports running instances only, which is what is wanted.
 */
export const INSTANCE_STATUS_FILTERS: readonly (readonly Filter[])[] = [
  [{ Name: 'instance-status.status', Values: ['impaired'] }],
  [{ Name: 'system-status.status', Values: ['impaired'] }],
  [
    {
      Name: 'event.code',
      Values: [
        'instance-reboot',
        'system-reboot',
        'system-maintenance',
        'instance-retirement',
        'instance-stop',
      ],
    },
  ],
];

/** DescribeInstanceStatus page size (its maximum). */
const PAGE_SIZE = 1000;

/**
 * One instance's status as the core reads it (instancestatus.go `newHealthStatus`): each
 * detail of the instance, system and attached-EBS status checks, and each scheduled event as a
 * failed `EventStatus` check named by its code.
 */
export function toInstanceHealthReport(status: InstanceStatus): InstanceHealthReport {
  const details = (category: InstanceStatusCategory, list: readonly InstanceStatusDetails[] | undefined) =>
    (list ?? []).map((d) => check(category, d.Name, d.Status, d.ImpairedSince));
  return {
    instanceId: status.InstanceId ?? '',
    checks: [
      ...details('InstanceStatus', status.InstanceStatus?.Details),
      ...details('SystemStatus', status.SystemStatus?.Details),
      ...(status.AttachedEbsStatus?.Details ?? []).map((d) =>
        check('EBSStatus', d.Name, d.Status, d.ImpairedSince),
      ),
      ...(status.Events ?? []).map((e) => check('EventStatus', e.Code, 'failed', undefined)),
    ],
  };
}

function check(
  category: InstanceStatusCategory,
  name: string | undefined,
  status: string | undefined,
  impairedSince: Date | undefined,
): InstanceStatusCheck {
  return {
    category,
    name: name ?? '',
    status: status ?? '',
    ...(impairedSince === undefined ? {} : { impairedSince: impairedSince.getTime() }),
  };
}

/**
 * Every instance of the region EC2 reports impaired or with a scheduled event, each once.
 * `pageSize` is DescribeInstanceStatus MaxResults (5..1000).
 */
export async function describeUnhealthyInstances(
  ec2: EC2Client,
  retry: RetryPolicy,
  pageSize = PAGE_SIZE,
): Promise<InstanceHealthReport[]> {
  const seen = new Map<string, InstanceHealthReport>();
  for (const filters of INSTANCE_STATUS_FILTERS) {
    const what = `describing instance status (${filters[0].Name})`;
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      const page = await describePage(ec2, retry, { filters, pageSize, token }, what);
      for (const status of page.InstanceStatuses ?? []) {
        if (status.InstanceId && !seen.has(status.InstanceId))
          seen.set(status.InstanceId, toInstanceHealthReport(status));
      }
      nextToken = page.NextToken === '' ? undefined : page.NextToken;
      // A token handed back unchanged would page forever.
      if (nextToken !== undefined && nextToken === token)
        throw new CloudError(`${what}: the same NextToken came back twice`, undefined, true);
    } while (nextToken !== undefined);
  }
  return [...seen.values()];
}

async function describePage(
  ec2: EC2Client,
  retry: RetryPolicy,
  request: { filters: readonly Filter[]; pageSize: number; token: string | undefined },
  what: string,
): Promise<DescribeInstanceStatusCommandOutput> {
  const { filters, pageSize, token } = request;
  try {
    return await withRetry(
      what,
      () =>
        ec2.send(
          new DescribeInstanceStatusCommand({
            Filters: [...filters],
            MaxResults: pageSize,
            ...(token === undefined ? {} : { NextToken: token }),
          }),
        ),
      retry,
    );
  } catch (error) {
    throw cloudErrorFrom(what, error);
  }
}
