import * as z from 'zod';
import {
  type AmiFamily,
  type BlockDeviceMapping,
  DEFAULT_ROOT_VOLUME_BYTES,
  type EC2NodeClass,
  isWindowsFamily,
} from '../model/ec2nodeclass';
import type { ValidationLocation } from '../model/errors';
import { resourceValue } from '../model/quantity';
import { kubelet, kubeletFamilyProblem, toKubelet } from './ec2nodeclass-kubelet';
import {
  connectionTracking,
  cpuOptions,
  networkInterfaces,
  placementGroupSelector,
} from './ec2nodeclass-network';
import {
  aliasAmiFamily,
  amiTerms,
  capacityReservationTerms,
  ignoredSelectorFields,
  securityGroupTerms,
  subnetTerms,
} from './ec2nodeclass-terms';
import { launchWarnings } from './ec2nodeclass-warnings';
import { type ManifestKind, manifestHeader, parseManifest } from './manifest-schema';

/**
 * Parsing and validating karpenter.k8s.aws/v1 EC2NodeClasses as Karpenter v1.14 does: the AWS
 * provider's CRD (OpenAPI schema and CEL rules, aws/karpenter-provider-aws
 * pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml) and, for spec.kubelet, the open kubelet
 * settings of its main branch (see ec2nodeclass-kubelet.ts).
 *
 * Where we differ, and why:
 * - Unknown fields are errors rather than silently pruned (see parseNodePool).
 * - Cross-field rules run on a part of the object only once that part is well-typed.
 * - What Karpenter accepts and podlift does not (fully) honour is accepted and listed in the
 *   result's `warnings` (see ec2nodeclass-warnings.ts).
 */

/** apiVersion of the EC2NodeClasses this module parses. */
export const EC2NODECLASS_API_VERSION = 'karpenter.k8s.aws/v1';

/**
 * The CRD's pattern. Its "||" alternatives also admit a bare "Ti" or "T", which Karpenter's
 * resource.ParseQuantity reads as 0 (no digits parse as zero): accepted, as 0, with a warning.
 */
const VOLUME_SIZE =
  /^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$/;
/** A volume size without a number ("Ti", "T"). */
const BARE_UNIT = /^(Ti|T)$/;

const ebs = z
  .strictObject({
    deleteOnTermination: z.boolean().optional(),
    encrypted: z.boolean().optional(),
    iops: z.int().optional(),
    kmsKeyID: z.string().optional(),
    snapshotID: z.string().optional(),
    throughput: z.int().optional(),
    volumeInitializationRate: z.int32().min(100).max(300).optional(),
    volumeSize: z
      .string({ error: 'must be a string with a unit: "100Gi", "100G", "1Ti" or "1T"' })
      .regex(VOLUME_SIZE, 'must be a size in Gi, G, Ti or T ("100Gi"), at most 59000Gi / 64000G / 58Ti / 64T')
      .optional(),
    volumeType: z.enum(['standard', 'io1', 'io2', 'gp2', 'sc1', 'st1', 'gp3']).optional(),
  })
  .superRefine((e, ctx) => {
    if (e.snapshotID === undefined && e.volumeSize === undefined) {
      ctx.addIssue({ code: 'custom', message: 'snapshotID or volumeSize must be defined' });
    }
    if (e.volumeInitializationRate !== undefined && !e.snapshotID) {
      ctx.addIssue({
        code: 'custom',
        message: 'snapshotID must be set when volumeInitializationRate is set',
        path: ['volumeInitializationRate'],
      });
    }
  });

const blockDeviceMapping = z.strictObject({
  deviceName: z.string().optional(),
  ebs: ebs.optional(),
  rootVolume: z.boolean().optional(),
});

const tags = z.record(z.string(), z.string()).superRefine((t, ctx) => {
  for (const key of Object.keys(t)) {
    let message: string | undefined;
    if (key === '') message = "empty tag keys aren't supported";
    else if (key === 'eks:eks-cluster-name')
      message = 'tag contains a restricted tag matching eks:eks-cluster-name';
    else if (key.startsWith('kubernetes.io/cluster')) {
      message = 'tag contains a restricted tag matching kubernetes.io/cluster/';
    } else if (
      ['karpenter.sh/nodepool', 'karpenter.sh/nodeclaim', 'karpenter.k8s.aws/ec2nodeclass'].includes(key)
    ) {
      message = `tag contains a restricted tag matching ${key}`;
    }
    if (message) ctx.addIssue({ code: 'custom', message, path: [key] });
  }
});

const spec = z
  .strictObject({
    subnetSelectorTerms: subnetTerms,
    securityGroupSelectorTerms: securityGroupTerms,
    capacityReservationSelectorTerms: capacityReservationTerms.optional(),
    placementGroupSelector: placementGroupSelector.optional(),
    associatePublicIPAddress: z.boolean().optional(),
    ipPrefixCount: z.int32().min(0).optional(),
    amiSelectorTerms: amiTerms,
    amiFamily: z
      .enum(['AL2', 'AL2023', 'Bottlerocket', 'Custom', 'Windows2019', 'Windows2022', 'Windows2025'])
      .optional(),
    userData: z.string().optional(),
    role: z.string().min(1, 'role cannot be empty').optional(),
    instanceProfile: z.string().min(1, 'instanceProfile cannot be empty').optional(),
    tags: tags.optional(),
    kubelet: kubelet.optional(),
    blockDeviceMappings: z
      .array(blockDeviceMapping)
      .max(50)
      .superRefine((mappings, ctx) => {
        const roots = mappings.flatMap((m, i) => (m.rootVolume ? [i] : []));
        for (const i of roots.slice(1)) {
          ctx.addIssue({
            code: 'custom',
            message: `must have only one blockDeviceMappings with rootVolume (also blockDeviceMappings[${roots[0]}])`,
            path: [i, 'rootVolume'],
          });
        }
      })
      .optional(),
    instanceStorePolicy: z.enum(['RAID0']).optional(),
    networkInterfaces: networkInterfaces.optional(),
    detailedMonitoring: z.boolean().optional(),
    metadataOptions: z
      .strictObject({
        httpEndpoint: z.enum(['enabled', 'disabled']).optional(),
        httpProtocolIPv6: z.enum(['enabled', 'disabled']).optional(),
        httpPutResponseHopLimit: z.int().min(1).max(64).optional(),
        httpTokens: z.enum(['required', 'optional']).optional(),
      })
      .optional(),
    connectionTracking: connectionTracking.optional(),
    context: z.string().optional(),
    cpuOptions: cpuOptions.optional(),
  })
  .superRefine((s, ctx) => {
    if ((s.role === undefined) === (s.instanceProfile === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: "must specify exactly one of ['role', 'instanceProfile']",
        path: [s.role === undefined ? 'role' : 'instanceProfile'],
      });
    }
    const aliasFamily = aliasAmiFamily(s.amiSelectorTerms);
    if (aliasFamily === undefined && s.amiFamily === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'must specify amiFamily if amiSelectorTerms does not contain an alias',
        path: ['amiFamily'],
      });
    }
    if (
      aliasFamily !== undefined &&
      s.amiFamily !== undefined &&
      s.amiFamily !== 'Custom' &&
      s.amiFamily !== aliasFamily
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `if set, amiFamily must be '${aliasFamily}' or 'Custom' when using ${aliasFamily === 'AL2023' || aliasFamily === 'AL2' ? 'an' : 'a'} ${aliasFamily} alias`,
        path: ['amiFamily'],
      });
    }
    const family = s.amiFamily ?? aliasFamily;
    const kubeletProblem = s.kubelet && family ? kubeletFamilyProblem(s.kubelet, family) : undefined;
    if (kubeletProblem !== undefined) {
      ctx.addIssue({ code: 'custom', message: kubeletProblem, path: ['kubelet'] });
    }
  });

const EC2NODECLASS_KIND: ManifestKind = {
  kind: 'EC2NodeClass',
  apiVersion: EC2NODECLASS_API_VERSION,
  legacyApiVersion: 'karpenter.k8s.aws/v1beta1',
  fieldsOf: 'Karpenter v1.14',
};

const ec2NodeClassManifest = z.strictObject({
  ...manifestHeader(EC2NODECLASS_KIND),
  spec,
  status: z.record(z.string(), z.unknown()).optional(),
});

type Manifest = z.infer<typeof ec2NodeClassManifest>;
type Spec = Manifest['spec'];

/**
 * The device Karpenter mounts as the kubelet root for a family when no mapping says
 * rootVolume: true (the family's default ephemeral block device).
 */
function defaultRootDevice(family: AmiFamily): string | undefined {
  switch (family) {
    case 'AL2':
    case 'AL2023':
      return '/dev/xvda';
    case 'Bottlerocket':
      return '/dev/xvdb';
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return '/dev/sda1';
    case 'Custom':
      return undefined;
  }
}

/** The Windows families' default root volume: 50Gi on /dev/sda1 (Karpenter's amifamily/windows.go DefaultBlockDeviceMappings). */
const WINDOWS_ROOT_VOLUME_BYTES = 50 * 1024 ** 3;

/**
 * The node's ephemeral-storage (aws/karpenter-provider-aws pkg/providers/instancetype/types.go
 * ephemeralStorage): the rootVolume mapping's size, else the family's root device's, else the
 * family's default mapping (Windows' 50Gi), else 20Gi.
 */
function rootVolumeBytes(mappings: readonly BlockDeviceMapping[], family: AmiFamily): number {
  const device = defaultRootDevice(family);
  const root =
    mappings.find((m) => m.rootVolume === true) ??
    (device !== undefined ? mappings.find((m) => m.deviceName === device) : undefined);
  const size = root?.ebs?.volumeSize;
  if (size !== undefined) return resourceValue('ephemeral-storage', size);
  return isWindowsFamily(family) ? WINDOWS_ROOT_VOLUME_BYTES : DEFAULT_ROOT_VOLUME_BYTES;
}

function toBlockDeviceMapping(m: NonNullable<Spec['blockDeviceMappings']>[number]): BlockDeviceMapping {
  return {
    ...(m.deviceName !== undefined ? { deviceName: m.deviceName } : {}),
    ...(m.rootVolume !== undefined ? { rootVolume: m.rootVolume } : {}),
    ...(m.ebs !== undefined
      ? {
          ebs: Object.fromEntries(
            Object.entries(m.ebs)
              .filter(([, v]) => v !== undefined)
              // A bare unit is Karpenter's zero quantity (see VOLUME_SIZE).
              .map(([k, v]) => (k === 'volumeSize' && BARE_UNIT.test(String(v)) ? [k, `0${v}`] : [k, v])),
          ),
        }
      : {}),
  };
}

function toEC2NodeClass(m: Manifest): EC2NodeClass {
  const s = m.spec;
  const amiFamily: AmiFamily = s.amiFamily ?? aliasAmiFamily(s.amiSelectorTerms) ?? 'Custom';
  const blockDeviceMappings = (s.blockDeviceMappings ?? []).map(toBlockDeviceMapping);
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value !== undefined ? { [key]: value } : {}) as Partial<Record<K, V>>;
  return {
    name: m.metadata.name,
    ...optional('uid', m.metadata.uid),
    labels: m.metadata.labels ?? {},
    annotations: m.metadata.annotations ?? {},
    ...optional('kubelet', s.kubelet !== undefined ? toKubelet(s.kubelet) : undefined),
    subnetSelectorTerms: s.subnetSelectorTerms,
    securityGroupSelectorTerms: s.securityGroupSelectorTerms,
    capacityReservationSelectorTerms: s.capacityReservationSelectorTerms ?? [],
    amiSelectorTerms: s.amiSelectorTerms,
    amiFamily,
    ...optional('placementGroupSelector', s.placementGroupSelector),
    ...optional('associatePublicIPAddress', s.associatePublicIPAddress),
    ...optional('ipPrefixCount', s.ipPrefixCount),
    ...optional('role', s.role),
    ...optional('instanceProfile', s.instanceProfile),
    tags: s.tags ?? {},
    metadataOptions: {
      httpEndpoint: s.metadataOptions?.httpEndpoint ?? 'enabled',
      httpProtocolIPv6: s.metadataOptions?.httpProtocolIPv6 ?? 'disabled',
      httpPutResponseHopLimit: s.metadataOptions?.httpPutResponseHopLimit ?? 1,
      httpTokens: s.metadataOptions?.httpTokens ?? 'required',
    },
    blockDeviceMappings,
    ...optional('instanceStorePolicy', s.instanceStorePolicy),
    ...optional('networkInterfaces', s.networkInterfaces),
    ...optional('connectionTracking', s.connectionTracking),
    ...optional('cpuOptions', s.cpuOptions),
    ...optional('userData', s.userData),
    detailedMonitoring: s.detailedMonitoring ?? false,
    ...optional('context', s.context),
    rootVolumeBytes: rootVolumeBytes(blockDeviceMappings, amiFamily),
    ...optional('status', m.status),
    warnings: [...ignoredSelectorFields(s), ...launchWarnings(s)],
  };
}

/**
 * Validates a karpenter.k8s.aws/v1 EC2NodeClass manifest (already decoded from YAML or JSON)
 * like the AWS provider's CRD does and returns it with Karpenter's defaults applied:
 * metadataOptions { httpEndpoint: enabled, httpProtocolIPv6: disabled,
 * httpPutResponseHopLimit: 1, httpTokens: required }, detailedMonitoring false, amiFamily
 * inferred from an alias term (`al2023@latest` → AL2023), and rootVolumeBytes from the mapping
 * marked rootVolume, else the family's default root device (/dev/xvda for AL2 and AL2023,
 * /dev/xvdb for Bottlerocket, /dev/sda1 for Windows), else 20Gi. Unknown fields are rejected.
 *
 * @param location where the manifest came from; `object` is set to `EC2NodeClass/<name>`.
 * @throws ValidationError listing every issue with its dotted field path and bad value.
 */
export function parseEC2NodeClass(obj: unknown, location: ValidationLocation = {}): EC2NodeClass {
  return parseManifest(EC2NODECLASS_KIND, ec2NodeClassManifest, obj, location, toEC2NodeClass);
}
