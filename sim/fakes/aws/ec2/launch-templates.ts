import type {
  CreateLaunchTemplateCommandInput,
  CreateLaunchTemplateCommandOutput,
  DeleteLaunchTemplateCommandInput,
  DeleteLaunchTemplateCommandOutput,
  DescribeLaunchTemplatesCommandInput,
  DescribeLaunchTemplatesCommandOutput,
  LaunchTemplate,
  RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context, Ec2Fail } from './context';
import type { FilterFields } from './filters';
import { filtered, PAGES, page } from './listing';
import { tagsFor, validateTagSpecifications } from './tags';

/** A launch template and the data it was created with (only version 1 is modelled). */
export interface LaunchTemplateRecord {
  readonly template: LaunchTemplate;
  readonly data: RequestLaunchTemplateData;
}

/** How requests name a launch template: by id, else by name. */
export interface LaunchTemplateKey {
  LaunchTemplateId?: string;
  LaunchTemplateName?: string;
}

const LAUNCH_TEMPLATE_FILTERS: FilterFields<LaunchTemplate> = {
  'launch-template-name': (t) => [t.LaunchTemplateName],
  'create-time': (t) => [t.CreateTime?.toISOString()],
};

/** Launch templates: created, listed and deleted as whole templates, names unique per region. */
export class Ec2LaunchTemplates {
  private readonly templates = new Map<string, LaunchTemplateRecord>();

  constructor(private readonly context: Ec2Context) {}

  /** The template a request names, if it exists. */
  find(key: LaunchTemplateKey): LaunchTemplateRecord | undefined {
    if (key.LaunchTemplateId !== undefined) return this.templates.get(key.LaunchTemplateId);
    return [...this.templates.values()].find((r) => r.template.LaunchTemplateName === key.LaunchTemplateName);
  }

  /** The error EC2 answers when the template a request names does not exist. */
  notFound(key: LaunchTemplateKey): Error {
    return key.LaunchTemplateId !== undefined
      ? this.context.fail(
          'InvalidLaunchTemplateId.NotFound',
          `The specified launch template, with template ID ${key.LaunchTemplateId}, does not exist.`,
        )
      : this.context.fail(
          'InvalidLaunchTemplateName.NotFoundException',
          `The specified launch template, with template name ${key.LaunchTemplateName ?? ''}, does not exist.`,
        );
  }

  createLaunchTemplate(
    input: CreateLaunchTemplateCommandInput,
  ): OperationOutput<CreateLaunchTemplateCommandOutput> {
    const { fail, clock, accountId } = this.context;
    const name = input.LaunchTemplateName ?? '';
    if (!/^[a-zA-Z0-9().\-/_]{3,128}$/.test(name)) {
      throw fail(
        'InvalidLaunchTemplateName.MalformedException',
        `Launch template name '${name}' is invalid: use 3 to 128 characters of a-z, A-Z, 0-9, ( ) . - / _`,
      );
    }
    if (input.LaunchTemplateData === undefined) {
      throw fail('MissingParameter', 'The request must contain the parameter LaunchTemplateData');
    }
    for (const spec of input.TagSpecifications ?? []) {
      if (spec.ResourceType !== 'launch-template') {
        throw fail(
          'InvalidParameterValue',
          `'${spec.ResourceType ?? ''}' is not a valid taggable resource type for this operation.`,
        );
      }
    }
    validateTagSpecifications(input.TagSpecifications, fail);
    validateUserData(input.LaunchTemplateData.UserData, fail);
    validateLaunchSettings(input.LaunchTemplateData, fail);
    // IamInstanceProfile is not checked: EC2 stores a profile that does not exist and only a
    // launch fails (InvalidParameterValue: Invalid IAM Instance Profile name), which is why
    // Karpenter's validation controller learns of a missing profile from a RunInstances dry run.
    if ([...this.templates.values()].some((r) => r.template.LaunchTemplateName === name)) {
      throw fail('InvalidLaunchTemplateName.AlreadyExistsException', `Launch template name already in use.`);
    }
    const template: LaunchTemplate = {
      LaunchTemplateId: `lt-${this.context.hexId(17)}`,
      LaunchTemplateName: name,
      CreateTime: new Date(clock.now()),
      CreatedBy: `arn:aws:iam::${accountId}:root`,
      DefaultVersionNumber: 1,
      LatestVersionNumber: 1,
      Tags: tagsFor(input.TagSpecifications, 'launch-template'),
    };
    this.templates.set(template.LaunchTemplateId!, { template, data: input.LaunchTemplateData });
    return { LaunchTemplate: template };
  }

  describeLaunchTemplates(
    input: DescribeLaunchTemplatesCommandInput,
  ): OperationOutput<DescribeLaunchTemplatesCommandOutput> {
    const all = [...this.templates.values()].map((r) => r.template);
    for (const id of input.LaunchTemplateIds ?? []) {
      if (!this.templates.has(id)) throw this.notFound({ LaunchTemplateId: id });
    }
    for (const name of input.LaunchTemplateNames ?? []) {
      if (!all.some((t) => t.LaunchTemplateName === name)) throw this.notFound({ LaunchTemplateName: name });
    }
    const ids = input.LaunchTemplateIds === undefined ? undefined : new Set(input.LaunchTemplateIds);
    const names = input.LaunchTemplateNames === undefined ? undefined : new Set(input.LaunchTemplateNames);
    const { fail } = this.context;
    const selected = filtered(fail, all, input.Filters, LAUNCH_TEMPLATE_FILTERS).filter(
      (t) =>
        (ids === undefined || ids.has(t.LaunchTemplateId!)) &&
        (names === undefined || names.has(t.LaunchTemplateName!)),
    );
    const listed = page(fail, selected, input, PAGES.launchTemplates, 'DescribeLaunchTemplates');
    return { LaunchTemplates: listed.items, NextToken: listed.nextToken };
  }

  deleteLaunchTemplate(
    input: DeleteLaunchTemplateCommandInput,
  ): OperationOutput<DeleteLaunchTemplateCommandOutput> {
    const record = this.find(input);
    if (record === undefined) throw this.notFound(input);
    this.templates.delete(record.template.LaunchTemplateId!);
    return { LaunchTemplate: record.template };
  }
}

/** EC2's limit on user data: 16 KB of raw bytes, before base64 encoding. */
export const USER_DATA_LIMIT_BYTES = 16_384;

/**
 * Refuses user data as CreateLaunchTemplate does, with `InvalidUserData.Malformed`: text that
 * is not base64, and more than 16 KB once decoded (the message Karpenter's IsUserDataTooLarge
 * looks for).
 */
export function validateUserData(userData: string | undefined, fail: Ec2Fail): void {
  if (userData === undefined) return;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(userData) || userData.length % 4 !== 0) {
    throw fail('InvalidUserData.Malformed', 'Invalid BASE64 encoding of user data.');
  }
  if (Buffer.from(userData, 'base64').length > USER_DATA_LIMIT_BYTES) {
    throw fail('InvalidUserData.Malformed', `User data is limited to ${USER_DATA_LIMIT_BYTES} bytes`);
  }
}

/** EC2's ranges for connection tracking timeouts, in seconds. */
const CONNECTION_TRACKING_RANGES = {
  TcpEstablishedTimeout: [60, 432_000],
  UdpStreamTimeout: [60, 180],
  UdpTimeout: [30, 60],
} as const;

/**
 * Refuses, as CreateLaunchTemplate's parameter validation does with `InvalidParameterValue`, a
 * CPU option outside its enum, a connection tracking timeout outside EC2's range and a tenancy
 * EC2 does not know. What depends on the instance type is checked at launch
 * (fleet-launch-checks.ts).
 */
export function validateLaunchSettings(data: RequestLaunchTemplateData, fail: Ec2Fail): void {
  const nested = data.CpuOptions?.NestedVirtualization;
  if (nested !== undefined && nested !== 'enabled' && nested !== 'disabled') {
    throw fail(
      'InvalidParameterValue',
      `Value (${nested}) for parameter cpuOptions.nestedVirtualization is invalid.`,
    );
  }
  const tenancy = data.Placement?.Tenancy;
  if (tenancy !== undefined && !['default', 'dedicated', 'host'].includes(tenancy)) {
    throw fail('InvalidParameterValue', `Value (${tenancy}) for parameter placement.tenancy is invalid.`);
  }
  for (const [i, eni] of (data.NetworkInterfaces ?? []).entries()) {
    const tracking = eni.ConnectionTrackingSpecification ?? {};
    for (const [name, [min, max]] of Object.entries(CONNECTION_TRACKING_RANGES)) {
      const value = tracking[name as keyof typeof CONNECTION_TRACKING_RANGES];
      if (value !== undefined && (value < min || value > max)) {
        throw fail(
          'InvalidParameterValue',
          `Value (${value}) for parameter networkInterface.${i + 1}.connectionTrackingSpecification.${name} is invalid. It must be between ${min} and ${max}.`,
        );
      }
    }
  }
}
