import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Annotations, aws_ssm as ssm } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import {
  type KopsDocument,
  karpenterInstanceGroupNames,
  karpenterManifestsFromKops,
  nodeupScriptPath,
} from '../../shared/core/kops/karpenter-objects';
import { isKopsManifest } from '../../shared/core/kops/kops-schema';
import { parseEC2NodeClass } from '../../shared/core/manifests/ec2nodeclass-schema';
import { manifestIdentity } from '../../shared/core/manifests/manifest-kind';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';
import { ValidationError, type ValidationLocation } from '../../shared/core/model/errors';
import { loadKubernetesYaml } from '../../shared/yaml/kubernetes-yaml';

/**
 * NodePools and EC2NodeClasses to store as SSM parameters: manifests as objects (typed props,
 * e.g. from a team's own CDK app) and/or YAML files (several documents each).
 */
export interface NodePoolSources {
  /**
   * NodePool and EC2NodeClass manifests (`apiVersion`, `kind`, `metadata`, `spec`).
   * @default none
   */
  readonly manifests?: readonly Readonly<Record<string, unknown>>[];
  /**
   * YAML files of NodePool and EC2NodeClass documents, read at synth time. A file may also hold
   * kOps' Cluster and InstanceGroups (kops.k8s.io): each `manager: Karpenter` InstanceGroup
   * becomes the EC2NodeClass and NodePool kOps generates (shared/core/kops), with its nodeup
   * script read from `igconfig/node/<name>/nodeupscript.sh` beside the file (a copy of the
   * cluster's configBase); synth fails when a script is missing.
   * @default none
   */
  readonly files?: readonly string[];
  /**
   * The root device name of kOps InstanceGroups' image (e.g. `/dev/sda1`), which kOps reads from
   * EC2; without it their EC2NodeClasses carry no root volume mapping (a synth warning says so).
   * @default none
   */
  readonly kopsRootDeviceName?: string;
}

/** One validated manifest and where it will be stored. */
export interface NodePoolParameter {
  readonly kind: 'NodePool' | 'EC2NodeClass';
  readonly name: string;
  /** `/podlift/<cluster>/nodepools/<name>` or `/podlift/<cluster>/nodeclasses/<name>` (shared/aws/ssm-config). */
  readonly parameterName: string;
  /** The manifest as written (JSON), which the functions validate again when they read it. */
  readonly value: string;
}

interface Located {
  readonly manifest: unknown;
  readonly location: ValidationLocation;
}

const FOLDERS = { NodePool: 'nodepools', EC2NodeClass: 'nodeclasses' } as const;
// A standard parameter holds 4 KB; an advanced one 8 KB (and costs money, so only when needed).
const STANDARD_LIMIT = 4096;
const ADVANCED_LIMIT = 8192;

/**
 * Validates every manifest with the core's own validation (parseNodePool / parseEC2NodeClass,
 * what the functions apply to these parameters) and names each parameter.
 * @throws ValidationError naming the file or manifest index, the object, the field and the value
 */
export function nodePoolParameters(
  clusterName: string,
  sources: NodePoolSources,
  warn: (message: string) => void = () => {},
): NodePoolParameter[] {
  const located: Located[] = [
    ...(sources.manifests ?? []).map((manifest, index) => ({
      manifest,
      location: { source: `props.nodePools.manifests[${index}]` },
    })),
    ...(sources.files ?? []).flatMap((file) => readManifests(file, sources.kopsRootDeviceName, warn)),
  ];
  const seen = new Map<string, string>();
  return located.map(({ manifest, location }) => {
    const { kind, name } = manifestIdentity(manifest);
    if (kind !== 'NodePool' && kind !== 'EC2NodeClass') {
      throw new ValidationError(
        [{ field: 'kind', value: kind, message: 'must be NodePool or EC2NodeClass' }],
        location,
      );
    }
    const parsed =
      kind === 'NodePool' ? parseNodePool(manifest, location) : parseEC2NodeClass(manifest, location);
    const ref = `${kind}/${parsed.name}`;
    const where = location.source ?? '';
    const earlier = seen.get(ref);
    if (earlier !== undefined) {
      throw new ValidationError(
        [{ field: 'metadata.name', value: name, message: `is defined twice (first in ${earlier})` }],
        { ...location, object: ref },
      );
    }
    seen.set(ref, where);
    const value = JSON.stringify(manifest);
    if (value.length > ADVANCED_LIMIT) {
      throw new ValidationError(
        [
          {
            field: '(manifest)',
            value: `${value.length} bytes`,
            message: `exceeds SSM's ${ADVANCED_LIMIT}-byte limit`,
          },
        ],
        { ...location, object: ref },
      );
    }
    return {
      kind,
      name: parsed.name,
      parameterName: `/podlift/${clusterName}/${FOLDERS[kind]}/${parsed.name}`,
      value,
    };
  });
}

function readManifests(
  file: string,
  rootDeviceName: string | undefined,
  warn: (message: string) => void,
): Located[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ValidationError(
      [{ field: '(file)', value: file, message: `cannot be read: ${(error as Error).message}` }],
      { source: file },
    );
  }
  // The functions' own reader and limits (shared/yaml): a file the functions would refuse in an
  // SSM parameter fails the synth instead, naming the file, document and line.
  const located: Located[] = [];
  loadKubernetesYaml(text, file, (manifest, documentIndex) => {
    if (manifest !== null && manifest !== undefined)
      located.push({ manifest, location: { source: file, documentIndex } });
  });
  const kops = located.filter(({ manifest }) => isKopsManifest(manifest));
  if (kops.length === 0) return located;
  return [
    ...located.filter((l) => !isKopsManifest(l.manifest)),
    ...fromKops(file, kops, rootDeviceName, warn),
  ];
}

/** kOps InstanceGroups as the manifests kOps generates; never deploys a placeholder userData. */
function fromKops(
  file: string,
  documents: readonly KopsDocument[],
  rootDeviceName: string | undefined,
  warn: (message: string) => void,
): Located[] {
  const nodeupScripts = new Map<string, string>();
  for (const name of karpenterInstanceGroupNames(documents)) {
    const script = join(dirname(file), nodeupScriptPath(name));
    if (!existsSync(script)) {
      const ig = documents.find((d) => manifestIdentity(d.manifest).name === name);
      throw new ValidationError(
        [
          {
            field: 'userData',
            value: script,
            message: `needs kOps' nodeup script for this InstanceGroup: copy <configBase>/${nodeupScriptPath(name)} there`,
          },
        ],
        { ...ig?.location, object: `InstanceGroup/${name}` },
      );
    }
    nodeupScripts.set(name, readFileSync(script, 'utf8'));
  }
  const { manifests, warnings } = karpenterManifestsFromKops(documents, {
    nodeupScripts,
    ...(rootDeviceName !== undefined ? { rootDeviceName } : {}),
  });
  for (const w of warnings) warn(w);
  const locations = new Map(documents.map((d) => [manifestIdentity(d.manifest).name, d.location]));
  return manifests.map((manifest) => {
    const name = manifestIdentity(manifest).name ?? '';
    return { manifest, location: { ...locations.get(name), object: `InstanceGroup/${name}` } };
  });
}

/** The parameters as `AWS::SSM::Parameter` resources (String; standard tier unless over 4 KB). */
export class NodePoolParameters extends Construct {
  readonly parameters: readonly ssm.StringParameter[];

  constructor(
    scope: Construct,
    id: string,
    props: { readonly clusterName: string; readonly sources: NodePoolSources },
  ) {
    super(scope, id);
    const warn = (message: string): void => {
      Annotations.of(this).addWarningV2('podlift:kopsInstanceGroup', message);
    };
    this.parameters = nodePoolParameters(props.clusterName, props.sources, warn).map(
      (p) =>
        new ssm.StringParameter(this, `${p.kind}-${p.name}`, {
          parameterName: p.parameterName,
          stringValue: p.value,
          description: `podlift ${p.kind} ${p.name}`,
          tier: p.value.length > STANDARD_LIMIT ? ssm.ParameterTier.ADVANCED : ssm.ParameterTier.STANDARD,
        }),
    );
  }
}
