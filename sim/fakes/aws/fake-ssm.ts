import {
  type GetParameterCommandInput,
  type GetParameterCommandOutput,
  type GetParametersByPathCommandInput,
  type GetParametersByPathCommandOutput,
  type GetParametersCommandInput,
  type GetParametersCommandOutput,
  InvalidFilterKey,
  InvalidNextToken,
  type Parameter,
  ParameterAlreadyExists,
  ParameterNotFound,
  type ParameterType,
  ParameterVersionNotFound,
  type PutParameterCommandInput,
  type PutParameterCommandOutput,
  SSMServiceException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-ssm';
import type { Clock } from '../../../shared/core/ports/time';
import { FakeAwsService, type OperationOutput } from './fake-service';
import type { AuthorizationRequest } from './iam-policy/evaluate';
import { listingKey, PageRequestError, paginate } from './pagination';
import { type ModeledExceptionClass, ServiceErrorFactory } from './service-error';

/** A parameter to seed, e.g. a public AMI parameter under `/aws/service/...`. */
export interface ParameterSeed {
  readonly name: string;
  readonly value: string;
  /** @default 'String' */
  readonly type?: ParameterType;
  /** `aws:ec2:image` for AMI ids. @default 'text' */
  readonly dataType?: string;
}

/** Options of `FakeSsm`. */
export interface FakeSsmOptions {
  readonly clock: Clock;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** @default '123456789012' */
  readonly accountId?: string;
  readonly parameters?: readonly ParameterSeed[];
}

interface StoredVersion {
  readonly value: string;
  readonly type: ParameterType;
  readonly dataType: string;
  readonly modifiedAt: number;
}

const MODELED: Readonly<Record<string, ModeledExceptionClass>> = {
  ParameterNotFound: ParameterNotFound as unknown as ModeledExceptionClass,
  ParameterVersionNotFound: ParameterVersionNotFound as unknown as ModeledExceptionClass,
  ParameterAlreadyExists: ParameterAlreadyExists as unknown as ModeledExceptionClass,
  InvalidNextToken: InvalidNextToken as unknown as ModeledExceptionClass,
  InvalidFilterKey: InvalidFilterKey as unknown as ModeledExceptionClass,
  ValidationException: ValidationException as unknown as ModeledExceptionClass,
  ThrottlingException: ThrottlingException as unknown as ModeledExceptionClass,
};

const MAX_STANDARD_VALUE_LENGTH = 4096;

/**
 * A stateful, in-memory Parameter Store. Public parameters (`/aws/service/...`) are ordinary
 * seeded parameters; only PutParameter refuses the reserved `aws`/`ssm` prefixes. Versions
 * are kept, so `name:version` selectors work.
 */
export class FakeSsm extends FakeAwsService {
  readonly clientName = 'SSMClient';
  readonly region: string;
  readonly accountId: string;

  protected readonly throttlingErrorName = 'ThrottlingException';
  protected readonly errors = new ServiceErrorFactory(SSMServiceException, MODELED, {});
  protected readonly operations = {
    GetParameter: this.getParameter,
    GetParameters: this.getParameters,
    GetParametersByPath: this.getParametersByPath,
    PutParameter: this.putParameter,
  };

  private readonly parameters = new Map<string, StoredVersion[]>();

  constructor(options: FakeSsmOptions) {
    super(options.clock);
    this.region = options.region ?? 'us-east-1';
    this.accountId = options.accountId ?? '123456789012';
    for (const seed of options.parameters ?? []) this.seed(seed);
  }

  /**
   * Parameter actions on each parameter's ARN: public parameters (`/aws/service/...`) have no
   * account in theirs (`arn:aws:ssm:<region>::parameter/aws/service/...`); GetParametersByPath
   * is authorized on the path itself.
   */
  protected override authorizationRequests(operation: string, input: object): AuthorizationRequest[] {
    const request = input as { Name?: string; Names?: string[]; Path?: string };
    const names =
      operation === 'GetParametersByPath' ? [request.Path ?? '/'] : (request.Names ?? [request.Name ?? '']);
    return names.map((name) => ({
      action: `ssm:${operation}`,
      resource: this.parameterArn(name),
      context: {},
    }));
  }

  protected override requestedRegion(): string {
    return this.region;
  }

  private parameterArn(nameOrArn: string): string {
    if (nameOrArn.startsWith('arn:')) return nameOrArn.replace(/:\d+$/, '');
    const name = nameOrArn.replace(/:[^/:]+$/, '').replace(/^\//, '');
    const account = name.startsWith('aws/') ? '' : this.accountId;
    return `arn:aws:ssm:${this.region}:${account}:parameter/${name}`;
  }

  /** Adds a parameter (or a new version of one) without PutParameter's validation; not logged. */
  seed(seed: ParameterSeed): void {
    const versions = this.parameters.get(seed.name) ?? [];
    versions.push({
      value: seed.value,
      type: seed.type ?? 'String',
      dataType: seed.dataType ?? 'text',
      modifiedAt: this.clock.now(),
    });
    this.parameters.set(seed.name, versions);
  }

  getParameter(input: GetParameterCommandInput): OperationOutput<GetParameterCommandOutput> {
    const parameter = this.lookup(input.Name ?? '', input.WithDecryption === true);
    if (parameter === undefined) throw this.fail('ParameterNotFound', `Parameter ${input.Name} not found.`);
    return { Parameter: parameter };
  }

  getParameters(input: GetParametersCommandInput): OperationOutput<GetParametersCommandOutput> {
    const names = input.Names ?? [];
    if (names.length < 1 || names.length > 10) {
      throw this.fail(
        'ValidationException',
        `1 validation error detected: Value at 'names' failed to satisfy constraint: Member must have length between 1 and 10`,
      );
    }
    const found: Parameter[] = [];
    const invalid: string[] = [];
    for (const name of names) {
      const parameter = this.lookup(name, input.WithDecryption === true);
      if (parameter === undefined) invalid.push(name);
      else found.push(parameter);
    }
    return { Parameters: found, InvalidParameters: invalid };
  }

  /** Pages of at most 10 (the real limit), sorted by name; non-recursive means direct children only. */
  getParametersByPath(
    input: GetParametersByPathCommandInput,
  ): OperationOutput<GetParametersByPathCommandOutput> {
    const path = input.Path ?? '';
    if (!path.startsWith('/')) {
      throw this.fail(
        'ValidationException',
        `The parameter doesn't meet the parameter name requirements: path ${path} must begin with /`,
      );
    }
    for (const filter of input.ParameterFilters ?? []) {
      if (!['Type', 'KeyId', 'Label', 'DataType'].includes(filter.Key ?? '')) {
        throw this.fail(
          'InvalidFilterKey',
          `The filter key ${filter.Key} is not valid for GetParametersByPath`,
        );
      }
    }
    const prefix = path.endsWith('/') ? path : `${path}/`;
    const names = [...this.parameters.keys()]
      .filter(
        (name) =>
          name.startsWith(prefix) && (input.Recursive === true || !name.slice(prefix.length).includes('/')),
      )
      .sort();
    const parameters = names
      .map((name) => this.lookup(name, input.WithDecryption === true)!)
      .filter((parameter) => this.passesFilters(parameter, input.ParameterFilters ?? []));
    try {
      const page = paginate(
        parameters,
        input,
        { defaultSize: 10, min: 1, max: 10 },
        listingKey('GetParametersByPath', input),
      );
      return { Parameters: page.items, NextToken: page.nextToken };
    } catch (error) {
      if (!(error instanceof PageRequestError)) throw error;
      if (error.reason === 'invalid-token')
        throw this.fail('InvalidNextToken', 'The specified token is not valid.');
      throw this.fail(
        'ValidationException',
        `1 validation error detected: Value '${input.MaxResults}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 10`,
      );
    }
  }

  putParameter(input: PutParameterCommandInput): OperationOutput<PutParameterCommandOutput> {
    const name = input.Name ?? '';
    const value = input.Value ?? '';
    if (/^\/?(aws|ssm)/i.test(name)) {
      throw this.fail(
        'ValidationException',
        `Parameter name: can't be prefixed with "aws" or "ssm" (case-insensitive).`,
      );
    }
    if (value.length > MAX_STANDARD_VALUE_LENGTH && input.Tier !== 'Advanced') {
      throw this.fail(
        'ValidationException',
        `Standard tier parameters support a maximum parameter value of ${MAX_STANDARD_VALUE_LENGTH} characters.`,
      );
    }
    const existing = this.parameters.get(name);
    if (existing !== undefined && input.Overwrite !== true) {
      throw this.fail(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
      );
    }
    if (existing !== undefined && input.Tags !== undefined) {
      throw this.fail('ValidationException', "Invalid request: tags and overwrite can't be used together.");
    }
    const type = input.Type ?? existing?.at(-1)?.type;
    if (type === undefined)
      throw this.fail('ValidationException', 'A parameter type is required when you create a parameter.');
    this.seed({ name, value, type, dataType: input.DataType ?? existing?.at(-1)?.dataType });
    return { Version: this.parameters.get(name)!.length, Tier: input.Tier ?? 'Standard' };
  }

  /** Resolves `name` or `name:version` to the parameter as GetParameter returns it. */
  private lookup(nameWithSelector: string, withDecryption: boolean): Parameter | undefined {
    const match = /^(.*?)(?::(\d+))?$/.exec(nameWithSelector)!;
    const name = match[1]!;
    const versions = this.parameters.get(name);
    if (versions === undefined) return undefined;
    const version = match[2] === undefined ? versions.length : Number(match[2]);
    const stored = versions[version - 1];
    if (stored === undefined) {
      throw this.fail(
        'ParameterVersionNotFound',
        `Systems Manager could not find version ${version} of ${name}.`,
      );
    }
    const isPublic = name.startsWith('/aws/');
    return {
      Name: name,
      Type: stored.type,
      Value: stored.type === 'SecureString' && !withDecryption ? ciphertext(stored.value) : stored.value,
      Version: version,
      ...(match[2] === undefined ? {} : { Selector: `:${version}` }),
      LastModifiedDate: new Date(stored.modifiedAt),
      ARN: `arn:aws:ssm:${this.region}:${isPublic ? '' : this.accountId}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
      DataType: stored.dataType,
    };
  }

  private passesFilters(
    parameter: Parameter,
    filters: NonNullable<GetParametersByPathCommandInput['ParameterFilters']>,
  ): boolean {
    return filters.every((filter) => {
      if (filter.Key === 'Type') return (filter.Values ?? []).includes(parameter.Type ?? '');
      if (filter.Key === 'DataType') return (filter.Values ?? []).includes(parameter.DataType ?? '');
      return true;
    });
  }
}

/** What an undecrypted SecureString looks like: an opaque KMS blob, never the plaintext. */
function ciphertext(value: string): string {
  return `AQICAH${Buffer.from(`fake-kms:${value.length}:${Buffer.from(value).toString('hex').length}`).toString('base64')}`;
}
