import { GetParametersByPathCommand, type Parameter, type SSMClient } from '@aws-sdk/client-ssm';
import { parseEC2NodeClass } from '../../core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../core/manifests/nodepool-schema';
import type { EC2NodeClass } from '../../core/model/ec2nodeclass';
import { CloudError, ValidationError } from '../../core/model/errors';
import type { NodePool } from '../../core/model/nodepool';
import type { NodePoolConfigPort } from '../../core/ports/cloud';
import { cloudErrorFrom } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';
import { decodeParameterDocument } from './parameter-document';

/** Options of {@link SsmNodePoolConfig}. */
export interface SsmNodePoolConfigOptions {
  readonly ssm: SSMClient;
  readonly cluster: string;
  readonly retry: RetryPolicy;
  /** @default '/podlift' */
  readonly prefix?: string;
}

/** What {@link SsmNodePoolConfig.load} found. */
export interface SsmNodePoolConfigResult {
  readonly nodePools: readonly NodePool[];
  readonly nodeClasses: readonly EC2NodeClass[];
  /** One line per parameter skipped, each naming it. */
  readonly warnings: readonly string[];
  /** The skipped parameters' errors; `location.source` is the parameter name. */
  readonly errors: readonly ValidationError[];
  /** Parameter name by `NodePool/<name>` / `EC2NodeClass/<name>`, for {@link mergeWithCrds}'s warnings. */
  readonly sources: ReadonlyMap<string, string>;
}

/** One kind of object under one path. */
interface Section<T> {
  readonly kind: 'NodePool' | 'EC2NodeClass';
  readonly folder: 'nodepools' | 'nodeclasses';
  readonly parse: (obj: unknown, parameter: string) => T;
}

const NODE_POOLS: Section<NodePool> = {
  kind: 'NodePool',
  folder: 'nodepools',
  parse: (obj, parameter) => parseNodePool(obj, { source: parameter }),
};
const NODE_CLASSES: Section<EC2NodeClass> = {
  kind: 'EC2NodeClass',
  folder: 'nodeclasses',
  parse: (obj, parameter) => parseEC2NodeClass(obj, { source: parameter }),
};

/**
 * NodePools and EC2NodeClasses from SSM Parameter Store: one YAML or JSON manifest per
 * parameter under `/podlift/<cluster>/nodepools/` and `/podlift/<cluster>/nodeclasses/`
 * (recursively; SecureStrings decrypted), validated exactly as the CRDs are.
 *
 * Like Karpenter with an invalid object, a bad parameter never hides the good ones: it is
 * skipped, its ValidationError (naming the parameter) is returned in `errors` and summed up in
 * `warnings`. So is a second parameter defining a name already defined (parameters are read in
 * name order; the first wins). Only SSM itself failing (access denied, throttling past the
 * deadline) makes `load` throw, with a CloudError: without the parameters nothing can be decided.
 */
export class SsmNodePoolConfig implements NodePoolConfigPort {
  constructor(private readonly options: SsmNodePoolConfigOptions) {}

  async load(): Promise<SsmNodePoolConfigResult> {
    const warnings: string[] = [];
    const errors: ValidationError[] = [];
    const sources = new Map<string, string>();
    const nodePools = await this.section(NODE_POOLS, warnings, errors, sources);
    const nodeClasses = await this.section(NODE_CLASSES, warnings, errors, sources);
    return { nodePools, nodeClasses, warnings, errors, sources };
  }

  /** The path a section's parameters live under, without a trailing slash. */
  path(folder: 'nodepools' | 'nodeclasses'): string {
    return `${this.options.prefix ?? '/podlift'}/${this.options.cluster}/${folder}`;
  }

  private async section<T extends { readonly name: string }>(
    section: Section<T>,
    warnings: string[],
    errors: ValidationError[],
    sources: Map<string, string>,
  ): Promise<T[]> {
    const parameters = await this.parameters(this.path(section.folder));
    const out: T[] = [];
    for (const parameter of parameters.sort((a, b) => ((a.Name ?? '') < (b.Name ?? '') ? -1 : 1))) {
      const name = parameter.Name ?? '';
      try {
        const obj = section.parse(decodeParameterDocument(parameter.Value ?? '', name), name);
        const key = `${section.kind}/${obj.name}`;
        const earlier = sources.get(key);
        if (earlier !== undefined) {
          throw new ValidationError(
            [
              {
                field: 'metadata.name',
                value: obj.name,
                message: `already defined by SSM parameter ${earlier}`,
              },
            ],
            { source: name, object: key },
          );
        }
        sources.set(key, name);
        out.push(obj);
      } catch (e) {
        // Whatever went wrong with one parameter skips that parameter only: never the others,
        // never the loop (a crash here stopped every loop while one parameter was bad).
        const located = locatedError(e, name, section.kind);
        errors.push(located);
        warnings.push(`skipping SSM parameter ${name}: ${located.message}`);
      }
    }
    return out;
  }

  private async parameters(path: string): Promise<Parameter[]> {
    const what = `reading SSM parameters under ${path}/`;
    const out: Parameter[] = [];
    let nextToken: string | undefined;
    do {
      const token = nextToken;
      try {
        const page = await withRetry(
          what,
          () =>
            this.options.ssm.send(
              new GetParametersByPathCommand({
                Path: path,
                Recursive: true,
                WithDecryption: true,
                MaxResults: 10,
                ...(token === undefined ? {} : { NextToken: token }),
              }),
            ),
          this.options.retry,
        );
        out.push(...(page.Parameters ?? []));
        nextToken = nextPageToken(page.NextToken, token, what);
      } catch (error) {
        // Retryable failures already came back from withRetry as CloudErrors.
        throw cloudErrorFrom(what, error);
      }
    } while (nextToken !== undefined && nextToken !== '');
    return out;
  }
}

/**
 * `error` as a ValidationError naming the parameter and, when the document got too far to name
 * itself, `Kind/<last path segment>` (the construct names parameters after their object), so
 * that an EC2NodeClass parameter that fails still counts as an EC2NodeClass that did not
 * validate (garbage collection keeps its instance profiles then).
 */
function locatedError(error: unknown, parameter: string, kind: string): ValidationError {
  const validation =
    error instanceof ValidationError
      ? error
      : new ValidationError(
          [
            {
              field: '(document)',
              value: undefined,
              message: `cannot be read: ${error instanceof Error ? error.message : String(error)}`,
            },
          ],
          {},
          { cause: error },
        );
  return validation.at({
    source: validation.location.source ?? parameter,
    object: validation.location.object ?? `${kind}/${parameter.split('/').at(-1) ?? ''}`,
  });
}

/** The next page's token; a token handed back unchanged would page forever, so it is an error. */
function nextPageToken(
  next: string | undefined,
  previous: string | undefined,
  what: string,
): string | undefined {
  if (next === undefined || next === '') return undefined;
  if (next === previous) throw new CloudError(`${what}: the same NextToken came back twice`, undefined, true);
  return next;
}
