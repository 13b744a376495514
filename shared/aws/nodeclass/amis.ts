import { type EC2Client, type Filter, type Image, paginateDescribeImages } from '@aws-sdk/client-ec2';
import { GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { AmiSelectorTerm } from '../../core/model/ec2nodeclass';
import type { ResolvedAmi } from '../../core/model/ec2nodeclass-status';
import { LABEL_ARCH } from '../../core/model/labels';
import type { NodeSelectorRequirement } from '../../core/model/requirements';
import { aliasParameters, parseAlias, UnsupportedAliasError } from './ami-alias';
import { bestPerRequirementSet, orderAmis } from './ami-selection';
import { outcomeOfAwsError, type PartOutcome, resolved, unresolved } from './part-outcome';
import { tagFilters } from './selector-filters';

/** Karpenter's AMIsReady=False reason and message when the selectors match no AMI. */
export const AMIS_NOT_FOUND = {
  reason: 'AMINotFound',
  message: 'AMISelector did not match any AMIs',
} as const;

/** EC2 architectures Karpenter resolves AMIs for, as kubernetes.io/arch values. */
const KUBE_ARCHITECTURES: Readonly<Record<string, string>> = { x86_64: 'amd64', arm64: 'arm64' };

/** GetParameters takes at most 10 names per call. */
const SSM_BATCH = 10;

/** What `resolveAmis` needs besides the clients. */
export interface AmiResolutionInput {
  readonly terms: readonly AmiSelectorTerm[];
  /** The cluster's Kubernetes version, e.g. "1.31", for alias parameter paths. */
  readonly kubernetesVersion: string;
  /** For messages. */
  readonly nodeClassName: string;
  /** Epoch ms; an AMI whose deprecation time is at or before it is deprecated. */
  readonly now: number;
}

/** One DescribeImages call, and the requirements known for its images beyond their architecture. */
interface ImageQuery {
  readonly filters: Filter[];
  readonly owners?: string[];
  /** Image id → requirement sets learnt from SSM (variants); absent: the architecture only. */
  readonly known?: ReadonlyMap<string, ReadonlyArray<readonly NodeSelectorRequirement[]>>;
}

/**
 * Resolves amiSelectorTerms as Karpenter's AMI provider does. An alias reads the public SSM
 * parameters of its family for the cluster's Kubernetes version (one GetParameters call;
 * parameters that do not exist are skipped) and tags each AMI with the requirements of its
 * variant; id terms are gathered into one `image-id` query; ssmParameter terms are read from
 * SSM and added to it; name terms default to owners self and amazon; tags use `tag-key` for
 * `*`. DescribeImages asks for `available` images only and includes deprecated ones; for each
 * distinct set of requirements the newest non-deprecated AMI is kept (a deprecated one only
 * when nothing else serves them).
 *
 * @throws CloudError when EC2 or SSM throttles or fails (retryable); other errors become an outcome.
 */
export async function resolveAmis(
  ec2: EC2Client,
  ssm: SSMClient,
  input: AmiResolutionInput,
): Promise<PartOutcome<ResolvedAmi[]>> {
  const planned = await imageQueries(ssm, input);
  if (!planned.ok) return planned;
  const candidates: ResolvedAmi[] = [];
  for (const query of planned.value) {
    try {
      const pages = paginateDescribeImages(
        { client: ec2 },
        {
          // Only images that can launch: a newer AMI still `pending` (being registered or copied)
          // would otherwise win and every launch with it would fail (Karpenter's
          // amifamily/types.go DescribeImageQuery.DescribeImagesInput adds the same filter).
          Filters: [...query.filters, { Name: 'state', Values: ['available'] }],
          ...(query.owners === undefined || query.owners.length === 0 ? {} : { Owners: query.owners }),
          IncludeDeprecated: true,
          MaxResults: 1000,
        },
      );
      for await (const page of pages) {
        for (const image of page.Images ?? []) candidates.push(...amisOf(image, query, input.now));
      }
    } catch (error) {
      return outcomeOfAwsError(
        `describing images for EC2NodeClass ${input.nodeClassName} (filters ${JSON.stringify(query.filters)})`,
        error,
      );
    }
  }
  const amis = orderAmis(bestPerRequirementSet(candidates));
  return amis.length === 0 ? unresolved(AMIS_NOT_FOUND.reason, AMIS_NOT_FOUND.message) : resolved(amis);
}

async function imageQueries(ssm: SSMClient, input: AmiResolutionInput): Promise<PartOutcome<ImageQuery[]>> {
  const aliasTerm = input.terms.find((t) => t.alias !== undefined);
  if (aliasTerm?.alias !== undefined) return aliasQuery(ssm, aliasTerm.alias, input);

  const ids: string[] = [];
  const queries: ImageQuery[] = [];
  const parameterNames: string[] = [];
  for (const term of input.terms) {
    if (term.id !== undefined) ids.push(term.id);
    else if (term.ssmParameter !== undefined) parameterNames.push(term.ssmParameter);
    else {
      const filters = [
        ...(term.name === undefined ? [] : [{ Name: 'name', Values: [term.name] }]),
        ...tagFilters(term.tags),
      ];
      // Without an owner, a name term is limited to self and amazon so that a public AMI that
      // happens to share the name is never picked up (Karpenter's default).
      const owners =
        term.owner !== undefined ? [term.owner] : term.name !== undefined ? ['self', 'amazon'] : [];
      if (filters.length > 0 || owners.length > 0) queries.push({ filters, owners });
    }
  }
  if (parameterNames.length > 0) {
    const values = await readParameters(ssm, parameterNames, input);
    if (!values.ok) return values;
    // A parameter that does not exist, or does not hold an AMI id, is skipped (as Karpenter does).
    ids.push(...[...values.value.values()].filter((value) => value.startsWith('ami-')));
  }
  if (ids.length > 0) queries.push({ filters: [{ Name: 'image-id', Values: [...new Set(ids)] }] });
  return resolved(queries);
}

async function aliasQuery(
  ssm: SSMClient,
  alias: string,
  input: AmiResolutionInput,
): Promise<PartOutcome<ImageQuery[]>> {
  let parameters: ReturnType<typeof aliasParameters>;
  try {
    parameters = aliasParameters(parseAlias(alias), input.kubernetesVersion);
  } catch (error) {
    if (error instanceof UnsupportedAliasError) return unresolved(AMIS_NOT_FOUND.reason, error.message);
    throw error;
  }
  const values = await readParameters(
    ssm,
    parameters.map((p) => p.name),
    input,
  );
  if (!values.ok) return values;
  const known = new Map<string, Array<readonly NodeSelectorRequirement[]>>();
  for (const parameter of parameters) {
    const imageId = values.value.get(parameter.name);
    if (imageId === undefined) continue;
    known.set(imageId, [...(known.get(imageId) ?? []), ...parameter.requirementSets]);
  }
  if (known.size === 0) {
    return unresolved(
      AMIS_NOT_FOUND.reason,
      `failed to discover any AMIs for alias "${alias}": no SSM parameter exists for Kubernetes ${input.kubernetesVersion} (looked up ${parameters
        .map((p) => p.name)
        .join(', ')})`,
    );
  }
  return resolved([{ filters: [{ Name: 'image-id', Values: [...known.keys()] }], known }]);
}

/** Reads parameters in batches; names SSM does not know are left out of the result. */
async function readParameters(
  ssm: SSMClient,
  names: readonly string[],
  input: AmiResolutionInput,
): Promise<PartOutcome<Map<string, string>>> {
  const values = new Map<string, string>();
  const unique = [...new Set(names)];
  for (let i = 0; i < unique.length; i += SSM_BATCH) {
    const batch = unique.slice(i, i + SSM_BATCH);
    try {
      const out = await ssm.send(new GetParametersCommand({ Names: batch }));
      for (const parameter of out.Parameters ?? []) {
        if (parameter.Name !== undefined && parameter.Value !== undefined)
          values.set(parameter.Name, parameter.Value);
      }
    } catch (error) {
      return outcomeOfAwsError(
        `reading SSM parameters ${batch.join(', ')} for EC2NodeClass ${input.nodeClassName}`,
        error,
      );
    }
  }
  return resolved(values);
}

/** The AMIs one image stands for: one per known requirement set, each with its architecture. */
function amisOf(image: Image, query: ImageQuery, now: number): ResolvedAmi[] {
  const arch = KUBE_ARCHITECTURES[image.Architecture ?? ''];
  if (arch === undefined || image.ImageId === undefined) return [];
  const deprecation = image.DeprecationTime === undefined ? Number.NaN : Date.parse(image.DeprecationTime);
  const deprecated = !Number.isNaN(deprecation) && deprecation <= now;
  const sets = query.known?.get(image.ImageId) ?? [[]];
  return sets.map((set) => ({
    id: image.ImageId!,
    ...(image.Name === undefined ? {} : { name: image.Name }),
    ...(image.CreationDate === undefined ? {} : { creationDate: image.CreationDate }),
    deprecated,
    requirements: [{ key: LABEL_ARCH, operator: 'In' as const, values: [arch] }, ...set],
  }));
}
