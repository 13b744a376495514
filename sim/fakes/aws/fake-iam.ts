import {
  type AddRoleToInstanceProfileCommandInput,
  type AddRoleToInstanceProfileCommandOutput,
  type CreateInstanceProfileCommandInput,
  type CreateInstanceProfileCommandOutput,
  DeleteConflictException,
  type DeleteInstanceProfileCommandInput,
  type DeleteInstanceProfileCommandOutput,
  EntityAlreadyExistsException,
  type GetInstanceProfileCommandInput,
  type GetInstanceProfileCommandOutput,
  type GetRoleCommandInput,
  type GetRoleCommandOutput,
  IAMServiceException,
  type InstanceProfile,
  InvalidInputException,
  LimitExceededException,
  type ListInstanceProfilesCommandInput,
  type ListInstanceProfilesCommandOutput,
  NoSuchEntityException,
  type RemoveRoleFromInstanceProfileCommandInput,
  type RemoveRoleFromInstanceProfileCommandOutput,
  type Role,
  ServiceFailureException,
  type Tag,
  type TagInstanceProfileCommandInput,
  type TagInstanceProfileCommandOutput,
} from '@aws-sdk/client-iam';
import type { Clock } from '../../../shared/core/ports/time';
import { FakeAwsService, type OperationOutput } from './fake-service';
import { iamAuthorizationRequests } from './iam-authorization';
import { type Caller, type Denial, deniedSentence } from './iam-policy/authorization';
import type { AuthorizationRequest } from './iam-policy/evaluate';
import { type KnownErrorTable, type ModeledExceptionClass, ServiceErrorFactory } from './service-error';

/** A role to seed. */
export interface RoleSeed {
  readonly name: string;
  /** @default '/' */
  readonly path?: string;
  /** @default a trust policy for ec2.amazonaws.com */
  readonly assumeRolePolicyDocument?: string;
  readonly tags?: Readonly<Record<string, string>>;
}

/** Options of `FakeIam`. */
export interface FakeIamOptions {
  readonly clock: Clock;
  /** @default '123456789012' */
  readonly accountId?: string;
  readonly roles?: readonly RoleSeed[];
}

const modeled = (type: unknown) => type as ModeledExceptionClass;

/**
 * IAM's wire codes (`NoSuchEntity`) and the SDK's class names (`NoSuchEntityException`) both
 * select the modeled class, whose `name` is the class name, as callers see it from the SDK.
 */
const MODELED: Readonly<Record<string, ModeledExceptionClass>> = {
  NoSuchEntity: modeled(NoSuchEntityException),
  NoSuchEntityException: modeled(NoSuchEntityException),
  EntityAlreadyExists: modeled(EntityAlreadyExistsException),
  EntityAlreadyExistsException: modeled(EntityAlreadyExistsException),
  LimitExceeded: modeled(LimitExceededException),
  LimitExceededException: modeled(LimitExceededException),
  DeleteConflict: modeled(DeleteConflictException),
  DeleteConflictException: modeled(DeleteConflictException),
  InvalidInput: modeled(InvalidInputException),
  InvalidInputException: modeled(InvalidInputException),
  ServiceFailure: modeled(ServiceFailureException),
  ServiceFailureException: modeled(ServiceFailureException),
};

const IAM_ERRORS: KnownErrorTable = {
  NoSuchEntity: { fault: 'client', httpStatusCode: 404 },
  NoSuchEntityException: { fault: 'client', httpStatusCode: 404 },
  EntityAlreadyExists: { fault: 'client', httpStatusCode: 409 },
  EntityAlreadyExistsException: { fault: 'client', httpStatusCode: 409 },
  LimitExceeded: { fault: 'client', httpStatusCode: 409 },
  LimitExceededException: { fault: 'client', httpStatusCode: 409 },
  DeleteConflict: { fault: 'client', httpStatusCode: 409 },
  DeleteConflictException: { fault: 'client', httpStatusCode: 409 },
  ServiceFailure: { fault: 'server', httpStatusCode: 500 },
  ServiceFailureException: { fault: 'server', httpStatusCode: 500 },
};

const EC2_TRUST_POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

/**
 * A stateful, in-memory IAM holding roles (seeded) and instance profiles. Errors carry the
 * SDK's modeled classes (`NoSuchEntityException`, ...); throttling is IAM's `Throttling`.
 * IAM's eventual consistency is not modelled: every change is visible at once.
 */
export class FakeIam extends FakeAwsService {
  readonly clientName = 'IAMClient';
  readonly accountId: string;

  protected readonly throttlingErrorName = 'Throttling';
  protected readonly errors = new ServiceErrorFactory(IAMServiceException, MODELED, IAM_ERRORS);
  protected readonly operations = {
    GetRole: this.getRole,
    GetInstanceProfile: this.getInstanceProfile,
    CreateInstanceProfile: this.createInstanceProfile,
    AddRoleToInstanceProfile: this.addRoleToInstanceProfile,
    RemoveRoleFromInstanceProfile: this.removeRoleFromInstanceProfile,
    TagInstanceProfile: this.tagInstanceProfile,
    DeleteInstanceProfile: this.deleteInstanceProfile,
    ListInstanceProfiles: this.listInstanceProfiles,
  };

  private readonly roles = new Map<string, Role>();
  private readonly profiles = new Map<string, InstanceProfile>();
  private counter = 0;

  constructor(options: FakeIamOptions) {
    super(options.clock);
    this.accountId = options.accountId ?? '123456789012';
    for (const role of options.roles ?? []) this.addRole(role);
  }

  /** Seeds a role; not logged. */
  addRole(seed: RoleSeed): Role {
    const path = seed.path ?? '/';
    const role: Role = {
      Path: path,
      RoleName: seed.name,
      RoleId: `AROA${this.uniqueId()}`,
      Arn: `arn:aws:iam::${this.accountId}:role${path}${seed.name}`,
      CreateDate: new Date(this.clock.now()),
      AssumeRolePolicyDocument: encodeURIComponent(seed.assumeRolePolicyDocument ?? EC2_TRUST_POLICY),
      MaxSessionDuration: 3600,
      Tags: Object.entries(seed.tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
    };
    this.roles.set(seed.name, role);
    return structuredClone(role);
  }

  /** The instance profile as GetInstanceProfile would return it, for assertions. */
  instanceProfile(name: string): InstanceProfile | undefined {
    return structuredClone(this.profiles.get(name));
  }

  getRole(input: GetRoleCommandInput): OperationOutput<GetRoleCommandOutput> {
    return { Role: this.requireRole(input.RoleName ?? '') };
  }

  getInstanceProfile(
    input: GetInstanceProfileCommandInput,
  ): OperationOutput<GetInstanceProfileCommandOutput> {
    return { InstanceProfile: this.requireProfile(input.InstanceProfileName ?? '') };
  }

  createInstanceProfile(
    input: CreateInstanceProfileCommandInput,
  ): OperationOutput<CreateInstanceProfileCommandOutput> {
    const name = input.InstanceProfileName ?? '';
    if (!/^[\w+=,.@-]{1,128}$/.test(name)) {
      throw this.fail(
        'ValidationError',
        `1 validation error detected: Value '${name}' at 'instanceProfileName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+`,
      );
    }
    if (this.profiles.has(name)) {
      throw this.fail('EntityAlreadyExists', `Instance Profile ${name} already exists.`);
    }
    const path = input.Path ?? '/';
    const profile: InstanceProfile = {
      Path: path,
      InstanceProfileName: name,
      InstanceProfileId: `AIPA${this.uniqueId()}`,
      Arn: `arn:aws:iam::${this.accountId}:instance-profile${path}${name}`,
      CreateDate: new Date(this.clock.now()),
      Roles: [],
      Tags: [...(input.Tags ?? [])],
    };
    this.profiles.set(name, profile);
    return { InstanceProfile: profile };
  }

  addRoleToInstanceProfile(
    input: AddRoleToInstanceProfileCommandInput,
  ): OperationOutput<AddRoleToInstanceProfileCommandOutput> {
    const profile = this.requireProfile(input.InstanceProfileName ?? '');
    const role = this.requireRole(input.RoleName ?? '');
    if ((profile.Roles ?? []).length >= 1) {
      throw this.fail('LimitExceeded', 'Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1');
    }
    profile.Roles = [role];
    return {};
  }

  removeRoleFromInstanceProfile(
    input: RemoveRoleFromInstanceProfileCommandInput,
  ): OperationOutput<RemoveRoleFromInstanceProfileCommandOutput> {
    const profile = this.requireProfile(input.InstanceProfileName ?? '');
    this.requireRole(input.RoleName ?? '');
    if (!(profile.Roles ?? []).some((role) => role.RoleName === input.RoleName)) {
      throw this.fail(
        'NoSuchEntity',
        `The role with name ${input.RoleName} cannot be found in instance profile ${input.InstanceProfileName}.`,
      );
    }
    profile.Roles = (profile.Roles ?? []).filter((role) => role.RoleName !== input.RoleName);
    return {};
  }

  tagInstanceProfile(
    input: TagInstanceProfileCommandInput,
  ): OperationOutput<TagInstanceProfileCommandOutput> {
    const profile = this.requireProfile(input.InstanceProfileName ?? '');
    const tags: Tag[] = [...(profile.Tags ?? [])];
    for (const tag of input.Tags ?? []) {
      const existing = tags.find((t) => t.Key === tag.Key);
      if (existing !== undefined) existing.Value = tag.Value;
      else tags.push({ ...tag });
    }
    if (tags.length > 50)
      throw this.fail('LimitExceeded', 'The number of tags has reached the maximum limit of 50.');
    profile.Tags = tags;
    return {};
  }

  /**
   * Profiles under `PathPrefix` in name order, paged with IAM's `Marker` / `MaxItems` (1–1000,
   * default 100). Like IAM's list operations it leaves tags out: they need GetInstanceProfile.
   */
  listInstanceProfiles(
    input: ListInstanceProfilesCommandInput,
  ): OperationOutput<ListInstanceProfilesCommandOutput> {
    const max = input.MaxItems ?? 100;
    if (!Number.isInteger(max) || max < 1 || max > 1000) {
      throw this.fail(
        'ValidationError',
        `1 validation error detected: Value '${max}' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000`,
      );
    }
    const prefix = input.PathPrefix ?? '/';
    const matching = [...this.profiles.values()]
      .filter((p) => (p.Path ?? '/').startsWith(prefix))
      .sort((a, b) => ((a.InstanceProfileName ?? '') < (b.InstanceProfileName ?? '') ? -1 : 1));
    const offset = input.Marker === undefined ? 0 : Number.parseInt(input.Marker.replace(/^m/, ''), 36);
    if (!Number.isFinite(offset) || offset < 0 || offset > matching.length) {
      throw this.fail('InvalidInput', `Invalid Marker: ${input.Marker}`);
    }
    const page = matching.slice(offset, offset + max);
    const truncated = offset + max < matching.length;
    return {
      InstanceProfiles: page.map((p) => {
        const { Tags: _tags, ...listed } = structuredClone(this.requireProfile(p.InstanceProfileName ?? ''));
        return listed;
      }),
      IsTruncated: truncated,
      ...(truncated ? { Marker: `m${(offset + max).toString(36)}` } : {}),
    };
  }

  deleteInstanceProfile(
    input: DeleteInstanceProfileCommandInput,
  ): OperationOutput<DeleteInstanceProfileCommandOutput> {
    const profile = this.requireProfile(input.InstanceProfileName ?? '');
    if ((profile.Roles ?? []).length > 0) {
      throw this.fail(
        'DeleteConflict',
        'Cannot delete entity, must remove roles from instance profile first.',
      );
    }
    this.profiles.delete(profile.InstanceProfileName!);
    return {};
  }

  protected override authorizationRequests(operation: string, input: object): AuthorizationRequest[] {
    return iamAuthorizationRequests(
      {
        accountId: this.accountId,
        profile: (name) => this.profiles.get(name),
        role: (name) => this.roles.get(name),
      },
      operation,
      input,
    );
  }

  /** IAM (a query API) refuses with `AccessDenied`, HTTP 403. */
  protected override accessDenied(caller: Caller, denial: Denial): Error {
    return this.errors.create({
      name: 'AccessDenied',
      message: deniedSentence(caller, denial),
      fault: 'client',
      httpStatusCode: 403,
    });
  }

  private requireProfile(name: string): InstanceProfile {
    const profile = this.profiles.get(name);
    if (profile === undefined) throw this.fail('NoSuchEntity', `Instance Profile ${name} cannot be found.`);
    profile.Roles = (profile.Roles ?? []).map((role) => this.roles.get(role.RoleName ?? '') ?? role);
    return profile;
  }

  private requireRole(name: string): Role {
    const role = this.roles.get(name);
    if (role === undefined) throw this.fail('NoSuchEntity', `The role with name ${name} cannot be found.`);
    return role;
  }

  private uniqueId(): string {
    this.counter += 1;
    return this.counter.toString(36).toUpperCase().padStart(17, '0');
  }
}
