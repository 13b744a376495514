import { ValidationError, type ValidationIssue, type ValidationLocation } from '../model/errors';
import {
  amiSelectorTerms,
  capacityTypes,
  instanceTypes,
  isReservedTemplateLabel,
  type KopsTaint,
  nodeClassTags,
  nodeLabels,
  parseTaint,
  rootVolume,
} from './instance-group-rules';
import {
  type KopsCluster,
  type KopsInstanceGroup,
  parseKopsCluster,
  parseKopsInstanceGroup,
} from './kops-schema';

/**
 * `podlift kops`' core: the EC2NodeClass and NodePool kOps (1.36) generates for each AWS node
 * InstanceGroup with `spec.manager: Karpenter`, by kOps' own rules
 * (kubernetes/kops upup/pkg/fi/cloudup/template_functions_karpenter.go, rendered by
 * upup/models/cloudup/resources/addons/karpenter.sh/instancegroups.yaml.template), refusing what
 * kOps' validation refuses (pkg/apis/kops/validation/instancegroup.go validateKarpenterInstanceGroup).
 */

/** One kOps object of the input and where it was found. */
export interface KopsDocument {
  readonly manifest: unknown;
  readonly location: ValidationLocation;
}

/** What kOps reads from its state store and the cloud, which podlift has to be handed. */
export interface KopsConversionOptions {
  /**
   * The nodeup script of each InstanceGroup (kOps writes it to
   * `<configBase>/igconfig/node/<name>/nodeupscript.sh`). An InstanceGroup without one gets
   * {@link nodeupScriptPlaceholder} as its userData.
   * @default none
   */
  readonly nodeupScripts?: ReadonlyMap<string, string>;
  /**
   * The root device name of the InstanceGroups' image (kOps asks EC2 DescribeImages); without
   * it the EC2NodeClass carries no blockDeviceMappings and a warning says what was left out.
   * @default none
   */
  readonly rootDeviceName?: string;
}

/** The generated manifests (EC2NodeClass then NodePool for each InstanceGroup, by name) and warnings. */
export interface KopsConversion {
  readonly manifests: readonly Record<string, unknown>[];
  readonly warnings: readonly string[];
}

const PLACEHOLDER_PREFIX = '<podlift: kOps nodeup script for InstanceGroup ';

/**
 * Where kOps keeps an InstanceGroup's nodeup script, relative to the cluster's configBase
 * (pkg/model/bootstrapscript.go ResourceNodeUp, the `nodeupscript-<name>` ManagedFile).
 */
export function nodeupScriptPath(instanceGroup: string): string {
  return `igconfig/node/${instanceGroup}/nodeupscript.sh`;
}

/** The nodeup script's location in the cluster's state store (`<configBase>` when unknown). */
export function nodeupScriptLocation(instanceGroup: string, configBase: string | undefined): string {
  const base = configBase ? configBase.replace(/\/+$/, '') : '<configBase>';
  return `${base}/${nodeupScriptPath(instanceGroup)}`;
}

/** The userData printed when the nodeup script was not given: not a script, and says where it is. */
export function nodeupScriptPlaceholder(instanceGroup: string, configBase: string | undefined): string {
  return `${PLACEHOLDER_PREFIX}${instanceGroup}: copy ${nodeupScriptLocation(instanceGroup, configBase)} here>`;
}

/** Whether a userData is {@link nodeupScriptPlaceholder}'s text, which must never reach EC2. */
export function isNodeupScriptPlaceholder(userData: unknown): boolean {
  return typeof userData === 'string' && userData.startsWith(PLACEHOLDER_PREFIX);
}

/** The names of the InstanceGroups that are converted (`manager: Karpenter`), sorted. */
export function karpenterInstanceGroupNames(documents: readonly KopsDocument[]): string[] {
  return read(documents).instanceGroups.map(({ ig }) => ig.metadata.name);
}

/**
 * Converts kOps' Cluster and InstanceGroups into Karpenter's EC2NodeClass and NodePool.
 * Other kOps kinds are skipped with a warning; InstanceGroups without `manager: Karpenter` are
 * kOps' own (autoscaling groups) and skipped silently.
 * @throws ValidationError naming the file, document, InstanceGroup, field and value for what
 * kOps refuses
 */
export function karpenterManifestsFromKops(
  documents: readonly KopsDocument[],
  options: KopsConversionOptions = {},
): KopsConversion {
  const { cluster, instanceGroups, warnings } = read(documents);
  const manifests: Record<string, unknown>[] = [];
  for (const { ig, location } of instanceGroups) {
    const at: ValidationLocation = { ...location, object: `InstanceGroup/${ig.metadata.name}` };
    const built = convert(ig, cluster?.cluster, options);
    if ('issues' in built) throw new ValidationError(built.issues, at);
    manifests.push(built.nodeClass, built.nodePool);
    for (const w of built.warnings) warnings.push(`${where(at)}: ${w}`);
  }
  if (cluster?.cluster.spec?.karpenter?.enabled === true && instanceGroups.length > 0) {
    warnings.push(
      `${where(cluster.location)}: spec.karpenter.enabled is true: kOps then runs Karpenter too, and two provisioners would act on these NodePools`,
    );
  }
  return { manifests, warnings };
}

interface Read {
  cluster?: { cluster: KopsCluster; location: ValidationLocation };
  instanceGroups: { ig: KopsInstanceGroup; location: ValidationLocation }[];
  warnings: string[];
}

function read(documents: readonly KopsDocument[]): Read {
  const out: Read = { instanceGroups: [], warnings: [] };
  for (const { manifest, location } of documents) {
    const kind = (manifest as { kind?: unknown }).kind;
    if (kind === 'Cluster') {
      const cluster = parseKopsCluster(manifest, { ...location, object: 'Cluster' });
      if (out.cluster) {
        throw new ValidationError(
          [
            {
              field: 'kind',
              value: kind,
              message: `is a second Cluster (first in ${where(out.cluster.location)})`,
            },
          ],
          { ...location, object: `Cluster/${cluster.metadata.name}` },
        );
      }
      out.cluster = { cluster, location: { ...location, object: `Cluster/${cluster.metadata.name}` } };
    } else if (kind === 'InstanceGroup') {
      const ig = parseKopsInstanceGroup(manifest, { ...location, object: 'InstanceGroup' });
      // kOps' IsKarpenterManaged (pkg/apis/kops/instancegroup.go) also needs role Node; other
      // roles with manager Karpenter are refused below, as kOps' validation refuses them.
      if (ig.spec?.manager === 'Karpenter') out.instanceGroups.push({ ig, location });
    } else {
      out.warnings.push(`${where(location)}: kOps ${String(kind)} is not read by podlift kops; skipped`);
    }
  }
  out.instanceGroups.sort((a, b) => a.ig.metadata.name.localeCompare(b.ig.metadata.name));
  return out;
}

type Built =
  | { nodeClass: Record<string, unknown>; nodePool: Record<string, unknown>; warnings: string[] }
  | { issues: ValidationIssue[] };

function convert(
  ig: KopsInstanceGroup,
  cluster: KopsCluster | undefined,
  options: KopsConversionOptions,
): Built {
  const name = ig.metadata.name;
  const spec = ig.spec ?? {};
  const issues: ValidationIssue[] = [];
  const warnings: string[] = [];

  const labelCluster = ig.metadata.labels?.['kops.k8s.io/cluster'];
  const clusterName = cluster?.metadata.name ?? labelCluster;
  if (clusterName === undefined) {
    issues.push({
      field: 'metadata.labels["kops.k8s.io/cluster"]',
      value: undefined,
      message: 'is required without a Cluster object in the input (kops get ig -o yaml sets it)',
    });
  } else if (labelCluster !== undefined && labelCluster !== clusterName) {
    issues.push({
      field: 'metadata.labels["kops.k8s.io/cluster"]',
      value: labelCluster,
      message: `names another cluster than the input's Cluster ${clusterName}`,
    });
  }
  const provider = cluster?.spec?.cloudProvider;
  if (provider !== undefined && provider !== 'aws' && !(typeof provider === 'object' && 'aws' in provider)) {
    issues.push({
      field: 'spec.manager',
      value: spec.manager,
      message: `Karpenter InstanceGroups are only supported on AWS (the Cluster's cloudProvider is ${JSON.stringify(provider)})`,
    });
  }
  if (spec.role !== 'Node') {
    issues.push({
      field: 'spec.role',
      value: spec.role,
      message: 'Karpenter InstanceGroups must have role Node',
    });
  }
  if (spec.maxSize !== undefined && spec.maxSize <= 0) {
    issues.push({ field: 'spec.maxSize', value: spec.maxSize, message: 'must be greater than zero' });
  }
  // pkg/apis/kops/validation/instancegroup.go validateKarpenterStaticCapacity.
  if (spec.minSize !== undefined && spec.minSize <= 0) {
    issues.push({
      field: 'spec.minSize',
      value: spec.minSize,
      message: 'must be greater than zero for static capacity',
    });
  } else if (spec.minSize !== undefined && !staticCapacityEnabled(cluster)) {
    issues.push({
      field: 'spec.minSize',
      value: spec.minSize,
      message: 'static capacity requires StaticCapacity=true in cluster.spec.karpenter.featureGates',
    });
  }
  const amiTerms = amiSelectorTerms(spec.image);
  if (!Array.isArray(amiTerms)) issues.push(amiTerms as ValidationIssue);
  const taints: KopsTaint[] = [];
  (spec.taints ?? []).forEach((t, i) => {
    const taint = parseTaint(t);
    if (taint) taints.push(taint);
    else issues.push({ field: `spec.taints[${i}]`, value: t, message: 'must be key[=value]:effect' });
  });
  const publicIP = associatePublicIP(ig, cluster);
  if (publicIP !== undefined && typeof publicIP !== 'boolean') issues.push(publicIP);
  if (issues.length > 0 || clusterName === undefined) return { issues };

  if (cluster === undefined) {
    warnings.push(
      "associatePublicIPAddress left to the subnets' default: the Cluster object (its subnets' types) is not in the input",
    );
  }
  if (spec.mixedInstancesPolicy?.instanceRequirements !== undefined) {
    warnings.push(
      'spec.mixedInstancesPolicy.instanceRequirements is not carried into the NodePool (kOps does not either); add requirements to the NodePool by hand',
    );
  }
  const userData = options.nodeupScripts?.get(name);
  if (userData === undefined) {
    warnings.push(
      `userData is a placeholder: replace it with kOps' nodeup script, ${nodeupScriptLocation(name, cluster?.spec?.configBase)}`,
    );
  }
  const volume = rootVolume(ig);
  if (options.rootDeviceName === undefined) {
    warnings.push(
      `blockDeviceMappings left out (root volume ${volume.volumeSize} ${volume.volumeType}): kOps reads the image's root device name from EC2; pass it to podlift kops with --root-device-name`,
    );
  }

  const { maxPods, systemReserved = {}, kubeReserved = {} } = spec.kubelet ?? {};
  const kubelet = {
    ...(maxPods !== undefined ? { maxPods } : {}),
    ...(Object.keys(systemReserved).length > 0 ? { systemReserved } : {}),
    ...(Object.keys(kubeReserved).length > 0 ? { kubeReserved } : {}),
  };
  const securityGroups: Record<string, unknown>[] =
    spec.securityGroupOverride !== undefined
      ? [{ id: spec.securityGroupOverride }]
      : [{ tags: { KubernetesCluster: clusterName, Name: `nodes.${clusterName}` } }];
  for (const id of spec.additionalSecurityGroups ?? []) securityGroups.push({ id });

  const nodeClass = {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      amiFamily: 'Custom',
      amiSelectorTerms: amiTerms,
      ...(publicIP !== undefined ? { associatePublicIPAddress: publicIP } : {}),
      ...(options.rootDeviceName !== undefined
        ? { blockDeviceMappings: [{ deviceName: options.rootDeviceName, ebs: volume, rootVolume: true }] }
        : {}),
      // pkg/model/names.go LinkToIAMInstanceProfile: a custom profile's name is its ARN's last segment.
      instanceProfile:
        spec.iam?.profile !== undefined ? (spec.iam.profile.split('/').pop() ?? '') : `nodes.${clusterName}`,
      ...(Object.keys(kubelet).length > 0 ? { kubelet } : {}),
      securityGroupSelectorTerms: securityGroups,
      subnetSelectorTerms: [
        { tags: { KubernetesCluster: clusterName, [`kops.k8s.io/instance-group/${name}`]: 'true' } },
      ],
      tags: nodeClassTags(clusterName, cluster, ig, taints),
      userData: userData ?? nodeupScriptPlaceholder(name, cluster?.spec?.configBase),
    },
  };

  const types = instanceTypes(ig);
  const labels = Object.fromEntries(
    Object.entries(nodeLabels(cluster, ig)).filter(([k]) => !isReservedTemplateLabel(k)),
  );
  const nodePool = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      ...(spec.maxSize !== undefined ? { limits: { nodes: String(spec.maxSize) } } : {}),
      ...(spec.minSize !== undefined ? { replicas: spec.minSize } : {}),
      template: {
        ...(Object.keys(labels).length > 0 ? { metadata: { labels } } : {}),
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name },
          requirements: [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            ...(types.length > 0
              ? [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: types }]
              : []),
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: capacityTypes(ig) },
          ],
          ...(taints.length > 0 ? { taints } : {}),
        },
      },
    },
  };
  return { nodeClass, nodePool, warnings };
}

/**
 * kOps' rule for the public IP: the type of the InstanceGroup's first subnet decides; Public and
 * Utility take spec.associatePublicIp (default true), Private and DualStack never get one.
 * Port of template_functions_karpenter.go karpenterAssociatePublicIP (GatherSubnets for the lookup).
 * @returns undefined when there is no Cluster to look the subnet up in
 */
function associatePublicIP(
  ig: KopsInstanceGroup,
  cluster: KopsCluster | undefined,
): boolean | ValidationIssue | undefined {
  if (cluster === undefined) return undefined;
  const names = ig.spec?.subnets ?? [];
  const subnets = cluster.spec?.subnets ?? [];
  const first = subnets.find((s) => s.name === names[0]);
  if (first === undefined) {
    return {
      field: 'spec.subnets',
      value: names,
      message:
        names.length === 0
          ? 'must name a subnet of the Cluster'
          : `subnet ${names[0]} is not in the Cluster's spec.subnets`,
    };
  }
  switch (first.type) {
    case 'Public':
    case 'Utility':
      return ig.spec?.associatePublicIp ?? true;
    case 'Private':
    case 'DualStack':
      return false;
    default:
      return {
        field: 'spec.subnets',
        value: names,
        message: `subnet ${first.name} has unknown type ${JSON.stringify(first.type)}`,
      };
  }
}

/** pkg/apis/kops/validation/instancegroup.go karpenterStaticCapacityEnabled: the last StaticCapacity entry wins. */
function staticCapacityEnabled(cluster: KopsCluster | undefined): boolean {
  const gates = cluster?.spec?.karpenter?.featureGates;
  if (gates === undefined || gates === '') return true;
  let enabled = false;
  for (const gate of gates.split(',')) {
    const eq = gate.indexOf('=');
    if (eq < 0 || gate.slice(0, eq).trim() !== 'StaticCapacity') continue;
    enabled =
      gate
        .slice(eq + 1)
        .trim()
        .toLowerCase() === 'true';
  }
  return enabled;
}

function where(location: ValidationLocation): string {
  const doc = location.documentIndex !== undefined ? ` document ${location.documentIndex}` : '';
  const object = location.object !== undefined ? `: ${location.object}` : '';
  return `${location.source ?? '<input>'}${doc}${object}`;
}
