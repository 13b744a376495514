import type { ValidationIssue } from '../model/errors';
import type { KopsCluster, KopsInstanceGroup } from './kops-schema';

/**
 * kOps' rules for turning one `manager: Karpenter` InstanceGroup into pieces of an EC2NodeClass
 * and a NodePool, each a port of the kOps function it names (kubernetes/kops, 1.36). Pure.
 */

/** One term of EC2NodeClass.spec.amiSelectorTerms, as kOps writes it. */
export interface KopsAmiTerm {
  readonly id?: string;
  readonly name?: string;
  readonly owner?: string;
  readonly ssmParameter?: string;
}

/** A NodePool taint as kOps writes it (an empty value is left out). */
export interface KopsTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** The image owner aliases kOps resolves (upup/pkg/fi/cloudup/awsup/aws_cloud.go ResolveImageOwnerAlias). */
const IMAGE_OWNER_ALIASES: Readonly<Record<string, string>> = {
  amazon: '137112412989',
  'amazon.com': '137112412989',
  debian: '136693071363',
  debian11: '136693071363',
  flatcar: '075585003325',
  redhat: '309956199498',
  'redhat.com': '309956199498',
  ubuntu: '099720109477',
  rocky: '792107900819',
  rockylinux: '792107900819',
};

const IMAGE_FORMS = 'must be ami-*, ssm:<parameter>, <name>, or <owner>/<name>';

/**
 * amiSelectorTerms for the InstanceGroup's image: an AMI id, an SSM parameter, a name owned by
 * this account, or `<owner>/<name>` with kOps' owner aliases resolved.
 * Port of upup/pkg/fi/cloudup/template_functions_karpenter.go buildKarpenterAMITerms (and
 * pkg/apis/kops/validation/instancegroup.go validateKarpenterAMISelectorImage).
 * @returns the terms, or the issue kOps reports for the image
 */
export function amiSelectorTerms(image: string | undefined): readonly KopsAmiTerm[] | ValidationIssue {
  const trimmed = (image ?? '').trim();
  if (trimmed === '') {
    // kOps fills an empty image from its channel (populate_instancegroup_spec.go), which needs
    // the channel file and the cloud; podlift cannot, so the image must be written out.
    return {
      field: 'spec.image',
      value: image,
      message: "is required (kOps picks a default from the cluster's channel, which podlift cannot read)",
    };
  }
  if (trimmed.includes('://')) return { field: 'spec.image', value: image, message: IMAGE_FORMS };
  if (trimmed.startsWith('ami-')) return [{ id: trimmed }];
  if (trimmed.startsWith('ssm:')) {
    const parameter = trimmed.slice('ssm:'.length);
    if (parameter === '')
      return { field: 'spec.image', value: image, message: 'ssm image parameter is required' };
    return [{ ssmParameter: parameter }];
  }
  const slash = trimmed.indexOf('/');
  if (slash < 0) return [{ name: trimmed, owner: 'self' }];
  const owner = trimmed.slice(0, slash);
  const name = trimmed.slice(slash + 1);
  if (owner === '' || name === '') return { field: 'spec.image', value: image, message: IMAGE_FORMS };
  return [{ name, owner: IMAGE_OWNER_ALIASES[owner] ?? owner }];
}

/**
 * The instance types of machineType (comma-separated) and mixedInstancesPolicy.instances,
 * trimmed, deduplicated and sorted. Port of template_functions_karpenter.go karpenterInstanceTypes.
 */
export function instanceTypes(ig: KopsInstanceGroup): string[] {
  const values = new Set<string>();
  const add = (value: string): void => {
    const v = value.trim();
    if (v !== '') values.add(v);
  };
  for (const t of ig.spec?.mixedInstancesPolicy?.instances ?? []) add(t);
  for (const t of (ig.spec?.machineType ?? '').split(',')) add(t);
  return [...values].sort();
}

/**
 * Spot when a max price or spot duration is set; on-demand and spot when a mixed instances
 * policy puts less than 100 % above base on demand; otherwise on-demand.
 * Port of template_functions_karpenter.go karpenterCapacityTypes.
 */
export function capacityTypes(ig: KopsInstanceGroup): string[] {
  const spec = ig.spec ?? {};
  if (spec.maxPrice !== undefined || spec.spotDurationInMinutes !== undefined) return ['spot'];
  const aboveBase = spec.mixedInstancesPolicy?.onDemandAboveBase;
  if (aboveBase !== undefined && aboveBase < 100) {
    return ['on-demand', 'spot'];
  }
  return ['on-demand'];
}

/**
 * Parses a kOps taint `key[=value]:effect`. kOps (pkg/apis/kops/util/taints.go ParseTaint) also
 * accepts a bare key, which it would hand to Karpenter with an empty effect, which the NodePool
 * CRD refuses; podlift refuses it here instead, naming the taint.
 * @returns the taint, or undefined when the spec is not `key[=value]:effect`
 */
export function parseTaint(spec: string): KopsTaint | undefined {
  const parts = spec.split(':');
  if (parts.length !== 2 || parts[1] === '') return undefined;
  const keyValue = parts[0].split('=');
  if (keyValue.length > 2) return undefined;
  const [key, value] = keyValue;
  return { key, ...(value ? { value } : {}), effect: parts[1] };
}

/**
 * The node's labels: the cluster's and the InstanceGroup's kubelet nodeLabels (merged, the
 * InstanceGroup's win), `node-role.kubernetes.io/node`, then spec.nodeLabels.
 * Port of pkg/nodelabels/builder.go BuildNodeLabels for role Node.
 */
export function nodeLabels(cluster: KopsCluster | undefined, ig: KopsInstanceGroup): Record<string, string> {
  return {
    ...cluster?.spec?.kubelet?.nodeLabels,
    ...ig.spec?.kubelet?.nodeLabels,
    'node-role.kubernetes.io/node': '',
    ...ig.spec?.nodeLabels,
  };
}

/**
 * Node labels a NodePool template may not carry: kubernetes.io/hostname and Karpenter's own
 * domains, except karpenter.sh/capacity-type.
 * Port of template_functions_karpenter.go isKarpenterNodePoolTemplateReservedLabel.
 */
export function isReservedTemplateLabel(key: string): boolean {
  if (key === 'karpenter.sh/capacity-type') return false;
  if (key === 'kubernetes.io/hostname') return true;
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  return (
    domain === 'karpenter.sh' ||
    domain.endsWith('.karpenter.sh') ||
    domain === 'karpenter.k8s.aws' ||
    domain.endsWith('.karpenter.k8s.aws')
  );
}

/**
 * EC2 tags kOps puts on an InstanceGroup's instances, less those Karpenter reserves.
 * Port of pkg/model/context.go CloudTagsForInstanceGroup (AWS, role Node; CloudTags for the
 * Name and cluster tags) and template_functions_karpenter.go karpenterEC2NodeClassTags, which
 * drops kOps' `kubernetes.io/cluster/<name>: owned` (Karpenter reserves that key), so it is not
 * added here at all.
 * kOps' node-termination-handler queue-mode tag is left out: kOps refuses NTH together with
 * Karpenter (pkg/apis/kops/validation/validation.go).
 */
export function nodeClassTags(
  clusterName: string,
  cluster: KopsCluster | undefined,
  ig: KopsInstanceGroup,
  taints: readonly KopsTaint[],
): Record<string, string> {
  const name = ig.metadata.name;
  const tags: Record<string, string> = {
    Name: `${name}.${clusterName}`,
    KubernetesCluster: clusterName,
    ...cluster?.spec?.cloudLabels,
    ...ig.spec?.cloudLabels,
  };
  for (const [k, v] of Object.entries(nodeLabels(cluster, ig))) {
    tags[`k8s.io/cluster-autoscaler/node-template/label/${k}`] = v;
  }
  for (const t of taints) {
    tags[`k8s.io/cluster-autoscaler/node-template/taint/${t.key}`] = `${t.value ?? ''}:${t.effect}`;
  }
  tags['k8s.io/role/node'] = '1';
  tags['kops.k8s.io/instancegroup'] = name;
  return Object.fromEntries(Object.entries(tags).filter(([k]) => k !== '' && !isReservedTag(k)));
}

/** Port of template_functions_karpenter.go isKarpenterEC2NodeClassReservedTag. */
function isReservedTag(key: string): boolean {
  return (
    key.startsWith('kubernetes.io/cluster') ||
    key === 'eks:eks-cluster-name' ||
    key === 'karpenter.sh/nodepool' ||
    key === 'karpenter.sh/nodeclaim' ||
    key === 'karpenter.k8s.aws/ec2nodeclass'
  );
}

/** The root volume mapping's `ebs`, as kOps writes it. */
export interface KopsRootVolume {
  readonly deleteOnTermination: boolean;
  readonly encrypted: boolean;
  readonly iops?: number;
  readonly kmsKeyID?: string;
  readonly throughput?: number;
  readonly volumeSize: string;
  readonly volumeType: string;
}

// pkg/model/defaults/volumes.go DefaultVolumeSizeNode; pkg/model/awsmodel/autoscalinggroup.go.
const DEFAULT_NODE_VOLUME_GIB = 128;
const DEFAULT_GP3_IOPS = 3000;
const DEFAULT_GP3_THROUGHPUT = 125;
const DEFAULT_IO_IOPS = 100;

/**
 * The root volume with the launch template's defaults: 128 GiB gp3, encrypted, deleted on
 * termination; the KMS key only when encryption is set explicitly; IOPS and throughput raised
 * to gp3's minimums, IOPS to io1/io2's, both dropped for other types.
 * Port of template_functions_karpenter.go buildKarpenterBlockDeviceMappings (which, like kOps,
 * ignores rootVolumeDeleteOnTermination).
 */
export function rootVolume(ig: KopsInstanceGroup): KopsRootVolume {
  const spec = ig.spec ?? {};
  const size =
    spec.rootVolumeSize !== undefined && spec.rootVolumeSize > 0
      ? spec.rootVolumeSize
      : DEFAULT_NODE_VOLUME_GIB;
  const volumeType = spec.rootVolumeType || 'gp3';
  const kmsKeyID =
    spec.rootVolumeEncryption === true && spec.rootVolumeEncryptionKey
      ? spec.rootVolumeEncryptionKey
      : undefined;
  let iops: number | undefined = spec.rootVolumeIops;
  let throughput: number | undefined = spec.rootVolumeThroughput;
  if (volumeType === 'io1' || volumeType === 'io2') {
    iops = Math.max(iops ?? 0, DEFAULT_IO_IOPS);
    throughput = undefined;
  } else if (volumeType === 'gp3') {
    iops = Math.max(iops ?? 0, DEFAULT_GP3_IOPS);
    throughput = Math.max(throughput ?? 0, DEFAULT_GP3_THROUGHPUT);
  } else {
    iops = undefined;
    throughput = undefined;
  }
  return {
    deleteOnTermination: true,
    encrypted: spec.rootVolumeEncryption ?? true,
    ...(iops !== undefined ? { iops } : {}),
    ...(kmsKeyID !== undefined ? { kmsKeyID } : {}),
    ...(throughput !== undefined ? { throughput } : {}),
    volumeSize: `${size}Gi`,
    volumeType,
  };
}
