import { z } from 'zod';
import type { EC2NodeClassStatus } from '../model/ec2nodeclass-status';

const STATUS = z.looseObject({
  amis: z
    .array(
      z.looseObject({
        id: z.string(),
        name: z.string().optional(),
        deprecated: z.boolean().optional(),
        requirements: z
          .array(
            z.looseObject({
              key: z.string(),
              operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte']),
              values: z.array(z.string()).optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
  subnets: z
    .array(z.looseObject({ id: z.string(), zone: z.string(), zoneID: z.string().optional() }))
    .optional(),
  securityGroups: z.array(z.looseObject({ id: z.string(), name: z.string().optional() })).optional(),
  instanceProfile: z.string().optional(),
});

/**
 * What an EC2NodeClass's `.status` says it resolved to, as Karpenter (aws/karpenter-provider-aws
 * pkg/apis/v1/ec2nodeclass_status.go) and podlift write it: AMIs, subnets, security groups and
 * the instance profile — what drift compares a NodeClaim with when EC2 is not asked. Undefined
 * when the status resolves none of them or does not have their shape.
 */
export function nodeClassStatusFromObject(status: unknown): EC2NodeClassStatus | undefined {
  const parsed = STATUS.safeParse(status);
  if (!parsed.success) return undefined;
  const s = parsed.data;
  if (!s.amis?.length && !s.subnets?.length && !s.securityGroups?.length) return undefined;
  return {
    amis: (s.amis ?? []).map((a) => ({
      id: a.id,
      ...(a.name !== undefined ? { name: a.name } : {}),
      deprecated: a.deprecated ?? false,
      requirements: (a.requirements ?? []).map((r) => ({
        key: r.key,
        operator: r.operator,
        values: r.values ?? [],
      })),
    })),
    subnets: (s.subnets ?? []).map((n) => ({
      id: n.id,
      zone: n.zone,
      ...(n.zoneID !== undefined ? { zoneID: n.zoneID } : {}),
      availableIpAddressCount: 0,
    })),
    securityGroups: (s.securityGroups ?? []).map((g) => ({
      id: g.id,
      ...(g.name !== undefined ? { name: g.name } : {}),
    })),
    ...(s.instanceProfile !== undefined ? { instanceProfile: s.instanceProfile } : {}),
    conditions: [],
  };
}
