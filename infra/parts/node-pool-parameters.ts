import { readFileSync } from 'node:fs';
import { aws_ssm as ssm } from 'aws-cdk-lib';
import { Construct } from 'constructs';
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
   * YAML files of NodePool and EC2NodeClass documents, read at synth time.
   * @default none
   */
  readonly files?: readonly string[];
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
export function nodePoolParameters(clusterName: string, sources: NodePoolSources): NodePoolParameter[] {
  const located: Located[] = [
    ...(sources.manifests ?? []).map((manifest, index) => ({
      manifest,
      location: { source: `props.nodePools.manifests[${index}]` },
    })),
    ...(sources.files ?? []).flatMap((file) => readManifests(file)),
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

function readManifests(file: string): Located[] {
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
  const documents: Located[] = [];
  loadKubernetesYaml(text, file, (manifest, documentIndex) => {
    if (manifest !== null && manifest !== undefined)
      documents.push({ manifest, location: { source: file, documentIndex } });
  });
  return documents;
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
    this.parameters = nodePoolParameters(props.clusterName, props.sources).map(
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
