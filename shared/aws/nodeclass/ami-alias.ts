import {
  LABEL_INSTANCE_ACCELERATOR_COUNT,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_OS,
  LABEL_WINDOWS_BUILD,
} from '../../core/model/labels';
import type { NodeSelectorRequirement } from '../../core/model/requirements';

/** An EKS-optimized AMI variant (Karpenter's amifamily.Variant). */
export type AmiVariant = 'standard' | 'nvidia' | 'neuron';

/** The families an alias may name. */
export type AliasFamily = 'al2' | 'al2023' | 'bottlerocket' | 'windows2019' | 'windows2022' | 'windows2025';

const ALIAS_FAMILIES: readonly AliasFamily[] = [
  'al2',
  'al2023',
  'bottlerocket',
  'windows2019',
  'windows2022',
  'windows2025',
];

/** `al2023@latest` → family al2023, version latest. */
export interface AmiAlias {
  readonly family: AliasFamily;
  readonly version: string;
}

/** One public SSM parameter an alias reads, and the requirement sets the AMI it names serves. */
export interface AliasParameter {
  readonly name: string;
  /**
   * One set per variant the AMI serves (the AL2 GPU AMI serves NVIDIA and Neuron instances);
   * `kubernetes.io/arch` is added from the image's architecture once it is described.
   */
  readonly requirementSets: ReadonlyArray<readonly NodeSelectorRequirement[]>;
}

/** Why an alias cannot be resolved before asking SSM. */
export class UnsupportedAliasError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedAliasError';
  }
}

/** Windows Server builds for the windows-build node label (Karpenter's Windows family Build). */
const WINDOWS_BUILDS: Readonly<Record<'2019' | '2022' | '2025', string>> = {
  '2019': '10.0.17763',
  '2022': '10.0.20348',
  '2025': '10.0.26100',
};

/**
 * Parses `family@version`.
 * @throws UnsupportedAliasError naming the alias when it is malformed or names an unknown family.
 */
export function parseAlias(alias: string): AmiAlias {
  const at = alias.indexOf('@');
  const family = (at < 0 ? alias : alias.slice(0, at)).toLowerCase();
  const version = at < 0 ? '' : alias.slice(at + 1);
  if (at < 0 || version === '') {
    throw new UnsupportedAliasError(
      `alias "${alias}" is improperly formatted, must match the format 'family@version'`,
    );
  }
  if (!(ALIAS_FAMILIES as readonly string[]).includes(family)) {
    throw new UnsupportedAliasError(
      `alias "${alias}": family "${family}" is not supported, must be one of ${ALIAS_FAMILIES.join(', ')}`,
    );
  }
  if (family.startsWith('windows') && version !== 'latest') {
    throw new UnsupportedAliasError(`alias "${alias}": windows families may only specify version 'latest'`);
  }
  return { family: family as AliasFamily, version };
}

/** The requirements of a variant (Karpenter's Variant.Requirements). */
export function variantRequirements(variant: AmiVariant): NodeSelectorRequirement[] {
  switch (variant) {
    case 'standard':
      return [
        { key: LABEL_INSTANCE_ACCELERATOR_COUNT, operator: 'DoesNotExist' },
        { key: LABEL_INSTANCE_GPU_COUNT, operator: 'DoesNotExist' },
      ];
    case 'nvidia':
      return [{ key: LABEL_INSTANCE_GPU_COUNT, operator: 'Exists' }];
    case 'neuron':
      return [{ key: LABEL_INSTANCE_ACCELERATOR_COUNT, operator: 'Exists' }];
  }
}

/**
 * The public SSM parameters an alias resolves through for a Kubernetes version, with the
 * requirements each one's AMI serves: the exact paths of Karpenter's amifamily packages
 * (al2023.go, al2.go, bottlerocket.go, windows.go). `latest` maps to `recommended` for AL2 and
 * AL2023 and to `latest` for Bottlerocket; a pinned version names the release.
 *
 * @throws UnsupportedAliasError for AL2 on Kubernetes 1.33 and later, and Windows 2025 before
 * 1.35, as Karpenter refuses them (amifamily/ami.go DescribeImageQueries).
 */
export function aliasParameters(alias: AmiAlias, kubernetesVersion: string): AliasParameter[] {
  const k8s = kubernetesVersion;
  const latest = alias.version === 'latest';
  const sets = (...variants: AmiVariant[]) => variants.map(variantRequirements);
  switch (alias.family) {
    case 'al2023': {
      const path = (arch: string, variant: AmiVariant) =>
        `/aws/service/eks/optimized-ami/${k8s}/amazon-linux-2023/${arch}/${variant}/${
          latest ? 'recommended' : `amazon-eks-node-al2023-${arch}-${variant}-${k8s}-${alias.version}`
        }/image_id`;
      const variants: ReadonlyArray<[string, AmiVariant]> = [
        ['x86_64', 'standard'],
        ['x86_64', 'nvidia'],
        ['x86_64', 'neuron'],
        ['arm64', 'standard'],
        ['arm64', 'nvidia'],
      ];
      return variants.map(([arch, variant]) => ({
        name: path(arch, variant),
        requirementSets: sets(variant),
      }));
    }
    case 'al2': {
      const minor = Number(k8s.split('.')[1]);
      if (Number.isFinite(minor) && minor >= 33) {
        throw new UnsupportedAliasError(
          `alias "al2@${alias.version}": AL2 aliases are no longer supported on EKS 1.33+ (Kubernetes ${k8s})`,
        );
      }
      const path = (suffix: string, release: string) =>
        `/aws/service/eks/optimized-ami/${k8s}/amazon-linux-2${suffix}/${
          latest ? 'recommended' : `${release}-${k8s}-${alias.version}`
        }/image_id`;
      return [
        { name: path('', 'amazon-eks-node'), requirementSets: sets('standard') },
        { name: path('-arm64', 'amazon-eks-arm64-node'), requirementSets: sets('standard') },
        { name: path('-gpu', 'amazon-eks-gpu-node'), requirementSets: sets('neuron', 'nvidia') },
      ];
    }
    case 'bottlerocket': {
      // Bottlerocket versions carry a `v` on GitHub but not in the SSM path; both are accepted.
      const version = alias.version.replace(/^v+/, '');
      const path = (flavour: string, arch: string) =>
        `/aws/service/bottlerocket/aws-k8s-${k8s}${flavour}/${arch}/${version}/image_id`;
      return [
        { name: path('', 'x86_64'), requirementSets: sets('standard', 'neuron') },
        { name: path('', 'arm64'), requirementSets: sets('standard') },
        { name: path('-nvidia', 'x86_64'), requirementSets: sets('nvidia') },
        { name: path('-nvidia', 'arm64'), requirementSets: sets('nvidia') },
      ];
    }
    case 'windows2019':
    case 'windows2022':
    case 'windows2025': {
      const year = alias.family.slice('windows'.length) as '2019' | '2022' | '2025';
      const minor = Number(k8s.split('.')[1]);
      if (year === '2025' && Number.isFinite(minor) && minor < 35) {
        throw new UnsupportedAliasError(
          `alias "windows2025@${alias.version}": Windows Server 2025 requires EKS version 1.35 or higher (Kubernetes ${k8s})`,
        );
      }
      return [
        {
          name: `/aws/service/ami-windows-latest/Windows_Server-${year}-English-Core-EKS_Optimized-${k8s}/image_id`,
          requirementSets: [
            [
              { key: LABEL_OS, operator: 'In', values: ['windows'] },
              { key: LABEL_WINDOWS_BUILD, operator: 'In', values: [WINDOWS_BUILDS[year]] },
            ],
          ],
        },
      ];
    }
  }
}
