import { z } from 'zod';
import { validationErrorFromZod } from '../manifests/schema-issues';
import type { ValidationLocation } from '../model/errors';

/**
 * The parts of kOps' `kops.k8s.io/v1alpha2` InstanceGroup and Cluster that decide the
 * EC2NodeClass and NodePool kOps generates for a `manager: Karpenter` InstanceGroup
 * (kubernetes/kops pkg/apis/kops/v1alpha2/instancegroup.go, cluster.go). Every other field is
 * kept unread: kOps' own objects carry far more than this converter needs.
 */

/** The API group of kOps' objects. */
export const KOPS_API_GROUP = 'kops.k8s.io';

const stringMap = z.record(z.string(), z.string());
const int32 = z.int();

const instanceGroupSpec = z.looseObject({
  manager: z.string().optional(),
  role: z.string().optional(),
  image: z.string().optional(),
  minSize: int32.optional(),
  maxSize: int32.optional(),
  machineType: z.string().optional(),
  // v1alpha2 spells the root volume as flat fields (InstanceGroupSpec.RootVolumeSize etc.).
  rootVolumeSize: int32.optional(),
  rootVolumeType: z.string().optional(),
  rootVolumeIops: int32.optional(),
  rootVolumeThroughput: int32.optional(),
  rootVolumeEncryption: z.boolean().optional(),
  rootVolumeEncryptionKey: z.string().optional(),
  subnets: z.array(z.string()).optional(),
  maxPrice: z.string().optional(),
  spotDurationInMinutes: z.int().optional(),
  associatePublicIp: z.boolean().optional(),
  additionalSecurityGroups: z.array(z.string()).optional(),
  securityGroupOverride: z.string().optional(),
  cloudLabels: stringMap.optional(),
  nodeLabels: stringMap.optional(),
  taints: z.array(z.string()).optional(),
  mixedInstancesPolicy: z
    .looseObject({
      instances: z.array(z.string()).optional(),
      onDemandAboveBase: z.int().optional(),
      instanceRequirements: z.unknown().optional(),
    })
    .optional(),
  iam: z.looseObject({ profile: z.string().optional() }).optional(),
  kubelet: z
    .looseObject({
      maxPods: int32.optional(),
      systemReserved: stringMap.optional(),
      kubeReserved: stringMap.optional(),
      nodeLabels: stringMap.optional(),
    })
    .optional(),
});

const instanceGroup = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), labels: stringMap.optional() }),
  spec: instanceGroupSpec.optional(),
});

const cluster = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1) }),
  spec: z
    .looseObject({
      // `aws` in v1alpha2; a mapping with an `aws` key in later versions.
      cloudProvider: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
      configBase: z.string().optional(),
      cloudLabels: stringMap.optional(),
      kubelet: z.looseObject({ nodeLabels: stringMap.optional() }).optional(),
      karpenter: z
        .looseObject({ enabled: z.boolean().optional(), featureGates: z.string().optional() })
        .optional(),
      subnets: z.array(z.looseObject({ name: z.string(), type: z.string().optional() })).optional(),
    })
    .optional(),
});

/** A kOps InstanceGroup as read (v1alpha2 field names). */
export type KopsInstanceGroup = z.infer<typeof instanceGroup>;
/** The InstanceGroup's spec (absent in the input means all defaults). */
export type KopsInstanceGroupSpec = z.infer<typeof instanceGroupSpec>;
/** A kOps Cluster as read. */
export type KopsCluster = z.infer<typeof cluster>;

/** Whether a manifest is one of kOps' own objects (apiVersion `kops.k8s.io/...`). */
export function isKopsManifest(obj: unknown): boolean {
  if (typeof obj !== 'object' || obj === null) return false;
  const apiVersion = (obj as Record<string, unknown>).apiVersion;
  return typeof apiVersion === 'string' && apiVersion.startsWith(`${KOPS_API_GROUP}/`);
}

/**
 * Validates an InstanceGroup's fields this converter reads.
 * @throws ValidationError naming the field and the bad value
 */
export function parseKopsInstanceGroup(obj: unknown, location: ValidationLocation): KopsInstanceGroup {
  const result = instanceGroup.safeParse(obj);
  if (!result.success) throw validationErrorFromZod(result.error, obj, location, 'not read');
  return result.data;
}

/**
 * Validates a Cluster's fields this converter reads.
 * @throws ValidationError naming the field and the bad value
 */
export function parseKopsCluster(obj: unknown, location: ValidationLocation): KopsCluster {
  const result = cluster.safeParse(obj);
  if (!result.success) throw validationErrorFromZod(result.error, obj, location, 'not read');
  return result.data;
}
