import * as z from 'zod';
import {
  type AmiFamily,
  type BlockDeviceMapping,
  DEFAULT_ROOT_VOLUME_BYTES,
  type EC2NodeClass,
  type KubeletConfiguration,
} from '../model/ec2nodeclass';
import type { ValidationLocation } from '../model/errors';
import { isQuantity, resourceValue } from '../model/quantity';
import { type ManifestKind, manifestHeader, parseManifest } from './manifest-schema';

/**
 * Parsing and validating karpenter.k8s.aws/v1 EC2NodeClasses, as the AWS provider's CRD
 * (OpenAPI schema and CEL rules) does.
 *
 * Where we differ, and why:
 * - Unknown fields are errors rather than silently pruned (see parseNodePool).
 * - Selector-term exclusivity (`id` with `tags`, ...) is checked per term. The CRD's rules are
 *   written `!self.all(...)`, which only rejects a list in which every term mixes them; the
 *   documented intent, and what Karpenter's own webhook enforced, is per term.
 * - Cross-field rules run on a part of the object only once that part is well-typed.
 * - Rules comparing with the previous object (role immutability, role ↔ instanceProfile) are
 *   not checkable on one document.
 */

/** apiVersion of the EC2NodeClasses this module parses. */
export const EC2NODECLASS_API_VERSION = 'karpenter.k8s.aws/v1';

const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
// Note the CRD's "||": an empty threshold is accepted.
const EVICTION_THRESHOLD =
  /^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?)$/;
const VOLUME_SIZE =
  /^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$/;
/** A Go time.Duration ("1m30s", "500ms"), as metav1.Duration accepts. */
const GO_DURATION = /^(0|[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+)$/;

const EVICTION_SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
];
const RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'];
const ALIAS_FAMILIES: Readonly<Record<string, AmiFamily>> = {
  al2: 'AL2',
  al2023: 'AL2023',
  bottlerocket: 'Bottlerocket',
  windows2019: 'Windows2019',
  windows2022: 'Windows2022',
};

/** Tags of a selector term: at most 20, keys and values non-empty. */
const selectorTags = z.record(z.string(), z.string()).superRefine((tags, ctx) => {
  const keys = Object.keys(tags);
  if (keys.length > 20) ctx.addIssue({ code: 'custom', message: 'must have at most 20 tags' });
  for (const key of keys) {
    if (key === '' || tags[key] === '') {
      ctx.addIssue({ code: 'custom', message: "empty tag keys or values aren't supported", path: [key] });
    }
  }
});

type Present = Readonly<Record<string, unknown>>;

/** Issues for a selector term that sets none of `anyOf`, or sets `exclusive` with any of `others`. */
function termRules(
  anyOf: readonly string[],
  exclusive: readonly (readonly [string, readonly string[]])[],
  list: string,
) {
  return (term: Present, ctx: z.RefinementCtx): void => {
    const has = (k: string) => term[k] !== undefined;
    if (!anyOf.some(has)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected at least one, got none, [${anyOf.map((k) => `'${k}'`).join(', ')}]`,
      });
    }
    for (const [field, others] of exclusive) {
      if (has(field) && others.some(has)) {
        ctx.addIssue({
          code: 'custom',
          message: `'${field}' is mutually exclusive, cannot be set with a combination of other fields in ${list} (found ${others.filter(has).join(', ')})`,
          path: [field],
        });
      }
    }
  };
}

const subnetTerm = z
  .strictObject({
    tags: selectorTags.optional(),
    id: z
      .string()
      .regex(/^subnet-[0-9a-z]+$/, 'must be a subnet id ("subnet-0123abcd")')
      .optional(),
    cidr: z.string().optional(),
  })
  .superRefine(termRules(['tags', 'id', 'cidr'], [['id', ['tags']]], 'subnetSelectorTerms'));

const securityGroupTerm = z
  .strictObject({
    tags: selectorTags.optional(),
    id: z
      .string()
      .regex(/^sg-[0-9a-z]+$/, 'must be a security group id ("sg-0123abcd")')
      .optional(),
    name: z.string().optional(),
  })
  .superRefine(
    termRules(
      ['tags', 'id', 'name'],
      [
        ['id', ['tags', 'name']],
        ['name', ['tags', 'id']],
      ],
      'securityGroupSelectorTerms',
    ),
  );

const capacityReservationTerm = z
  .strictObject({
    tags: selectorTags.optional(),
    id: z
      .string()
      .regex(/^cr-[0-9a-z]+$/, 'must be a capacity reservation id ("cr-0123abcd")')
      .optional(),
    ownerID: z
      .string()
      .regex(/^[0-9]{12}$/, 'must be a 12-digit AWS account id')
      .optional(),
    instanceMatchCriteria: z.enum(['open', 'targeted']).optional(),
  })
  .superRefine(
    termRules(
      ['tags', 'id', 'instanceMatchCriteria'],
      [['id', ['tags', 'ownerID', 'instanceMatchCriteria']]],
      'capacityReservationSelectorTerms',
    ),
  );

const alias = z
  .string()
  .max(30)
  .superRefine((value, ctx) => {
    if (!/^[a-zA-Z0-9]+@.+$/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: "'alias' is improperly formatted, must match the format 'family@version'",
      });
      return;
    }
    const [family, version] = value.split('@');
    if (!(family in ALIAS_FAMILIES)) {
      ctx.addIssue({
        code: 'custom',
        message:
          "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022'",
      });
    } else if (family.startsWith('windows') && version !== 'latest') {
      ctx.addIssue({ code: 'custom', message: "windows families may only specify version 'latest'" });
    }
  });

const amiTerm = z
  .strictObject({
    alias: alias.optional(),
    tags: selectorTags.optional(),
    id: z
      .string()
      .regex(/^ami-[0-9a-z]+$/, 'must be an AMI id ("ami-0123abcd")')
      .optional(),
    name: z.string().optional(),
    owner: z.string().optional(),
    ssmParameter: z.string().optional(),
  })
  .superRefine(
    termRules(
      ['tags', 'id', 'name', 'alias', 'ssmParameter'],
      [
        ['id', ['alias', 'tags', 'name', 'owner']],
        ['alias', ['id', 'tags', 'name', 'owner']],
      ],
      'amiSelectorTerms',
    ),
  );

function keyedMap<V extends z.ZodType>(value: V, allowed: readonly string[], field: string) {
  return z.record(z.string(), value).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (!allowed.includes(key)) {
        ctx.addIssue({
          code: 'custom',
          message: `valid keys for ${field} are [${allowed.map((k) => `'${k}'`).join(',')}]`,
          path: [key],
        });
      }
    }
  });
}

const reserved = (field: string) =>
  keyedMap(
    z
      .string()
      .regex(QUANTITY, 'must be a Kubernetes quantity ("100m", "1Gi")')
      .refine((v) => !v.startsWith('-'), `${field} value cannot be a negative resource quantity`),
    RESERVED_RESOURCES,
    field,
  );

const evictionThresholds = (field: string) =>
  keyedMap(
    z.string().regex(EVICTION_THRESHOLD, 'must be a percentage ("10%") or a quantity ("100Mi")'),
    EVICTION_SIGNALS,
    field,
  );

const kubelet = z
  .strictObject({
    maxPods: z.int32().min(0).optional(),
    podsPerCore: z.int32().min(0).optional(),
    systemReserved: reserved('systemReserved').optional(),
    kubeReserved: reserved('kubeReserved').optional(),
    evictionHard: evictionThresholds('evictionHard').optional(),
    evictionSoft: evictionThresholds('evictionSoft').optional(),
    evictionSoftGracePeriod: keyedMap(
      z.string().regex(GO_DURATION, 'must be a duration ("1m30s")'),
      EVICTION_SIGNALS,
      'evictionSoftGracePeriod',
    ).optional(),
    evictionMaxPodGracePeriod: z.int32().optional(),
    imageGCHighThresholdPercent: z.int32().min(0).max(100).optional(),
    imageGCLowThresholdPercent: z.int32().min(0).max(100).optional(),
    cpuCFSQuota: z.boolean().optional(),
    clusterDNS: z.array(z.string()).optional(),
  })
  .superRefine((k, ctx) => {
    const high = k.imageGCHighThresholdPercent;
    const low = k.imageGCLowThresholdPercent;
    if (high !== undefined && low !== undefined && high <= low) {
      ctx.addIssue({
        code: 'custom',
        message: `imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent (${low})`,
        path: ['imageGCHighThresholdPercent'],
      });
    }
    for (const signal of Object.keys(k.evictionSoft ?? {})) {
      if (!(signal in (k.evictionSoftGracePeriod ?? {}))) {
        ctx.addIssue({
          code: 'custom',
          message: 'evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod',
          path: ['evictionSoft', signal],
        });
      }
    }
    for (const signal of Object.keys(k.evictionSoftGracePeriod ?? {})) {
      if (!(signal in (k.evictionSoft ?? {}))) {
        ctx.addIssue({
          code: 'custom',
          message: 'evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft',
          path: ['evictionSoftGracePeriod', signal],
        });
      }
    }
  });

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
      // The CRD pattern's "||" also admits a bare unit ("Ti"), which is no quantity.
      .refine(isQuantity, 'must be a size in Gi, G, Ti or T ("100Gi")')
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
    subnetSelectorTerms: z.array(subnetTerm).min(1, 'subnetSelectorTerms cannot be empty').max(30),
    securityGroupSelectorTerms: z
      .array(securityGroupTerm)
      .min(1, 'securityGroupSelectorTerms cannot be empty')
      .max(30),
    capacityReservationSelectorTerms: z.array(capacityReservationTerm).max(30).optional(),
    associatePublicIPAddress: z.boolean().optional(),
    ipPrefixCount: z.int32().min(0).optional(),
    amiSelectorTerms: z
      .array(amiTerm)
      .min(1, 'amiSelectorTerms cannot be empty')
      .max(30)
      .superRefine((terms, ctx) => {
        if (terms.length > 1) {
          terms.forEach((t, i) => {
            if (t.alias !== undefined) {
              ctx.addIssue({
                code: 'custom',
                message:
                  "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
                path: [i, 'alias'],
              });
            }
          });
        }
      }),
    amiFamily: z.enum(['AL2', 'AL2023', 'Bottlerocket', 'Custom', 'Windows2019', 'Windows2022']).optional(),
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
    detailedMonitoring: z.boolean().optional(),
    metadataOptions: z
      .strictObject({
        httpEndpoint: z.enum(['enabled', 'disabled']).optional(),
        httpProtocolIPv6: z.enum(['enabled', 'disabled']).optional(),
        httpPutResponseHopLimit: z.int().min(1).max(64).optional(),
        httpTokens: z.enum(['required', 'optional']).optional(),
      })
      .optional(),
    context: z.string().optional(),
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
  });

const EC2NODECLASS_KIND: ManifestKind = {
  kind: 'EC2NodeClass',
  apiVersion: EC2NODECLASS_API_VERSION,
  legacyApiVersion: 'karpenter.k8s.aws/v1beta1',
};

const ec2NodeClassManifest = z.strictObject({
  ...manifestHeader(EC2NODECLASS_KIND),
  spec,
  status: z.record(z.string(), z.unknown()).optional(),
});

type Manifest = z.infer<typeof ec2NodeClassManifest>;
type Spec = Manifest['spec'];

/** The family of the alias term, when the terms are an alias (validation allows only one). */
function aliasAmiFamily(terms: readonly { alias?: string }[]): AmiFamily | undefined {
  const a = terms.find((t) => t.alias !== undefined)?.alias;
  return a === undefined ? undefined : ALIAS_FAMILIES[a.split('@')[0]];
}

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
      return '/dev/sda1';
    case 'Custom':
      return undefined;
  }
}

function rootVolumeBytes(mappings: readonly BlockDeviceMapping[], family: AmiFamily): number {
  const device = defaultRootDevice(family);
  const root =
    mappings.find((m) => m.rootVolume === true) ??
    (device !== undefined ? mappings.find((m) => m.deviceName === device) : undefined);
  const size = root?.ebs?.volumeSize;
  return size !== undefined ? resourceValue('ephemeral-storage', size) : DEFAULT_ROOT_VOLUME_BYTES;
}

function toKubelet(k: NonNullable<Spec['kubelet']>): KubeletConfiguration {
  // Every field is optional and already has the contract's shape; drop the absent ones.
  return Object.fromEntries(Object.entries(k).filter(([, v]) => v !== undefined)) as KubeletConfiguration;
}

function toBlockDeviceMapping(m: NonNullable<Spec['blockDeviceMappings']>[number]): BlockDeviceMapping {
  return {
    ...(m.deviceName !== undefined ? { deviceName: m.deviceName } : {}),
    ...(m.rootVolume !== undefined ? { rootVolume: m.rootVolume } : {}),
    ...(m.ebs !== undefined
      ? { ebs: Object.fromEntries(Object.entries(m.ebs).filter(([, v]) => v !== undefined)) }
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
    ...optional('userData', s.userData),
    detailedMonitoring: s.detailedMonitoring ?? false,
    ...optional('context', s.context),
    rootVolumeBytes: rootVolumeBytes(blockDeviceMappings, amiFamily),
    ...optional('status', m.status),
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
