import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  GetInstanceProfileCommand,
  type IAMClient,
  type InstanceProfile,
  RemoveRoleFromInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import { CloudError } from '../../core/model/errors';
import { awsErrorCode } from '../aws-error';
import { instanceProfileName, instanceProfilePath, instanceProfileTags } from './instance-profile-name';
import { outcomeOfAwsError, type PartOutcome, resolved, unresolved } from './part-outcome';

/** What deciding an EC2NodeClass's instance profile needs. */
export interface InstanceProfileRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly nodeClassName: string;
  readonly nodeClassUid?: string;
  /** spec.role: podlift creates and owns a profile for it. */
  readonly role?: string;
  /** spec.instanceProfile: used as given, after checking it exists. */
  readonly instanceProfile?: string;
  /** status.instanceProfile: the profile the node class's nodes are launched with now. */
  readonly currentProfile?: string;
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * Resolves the instance profile of an EC2NodeClass. With `instanceProfile`, checks that it
 * exists. With `role`, as Karpenter's InstanceProfile reconciler (controllers/nodeclass/
 * instanceprofile.go) does: the profile in status is kept while it holds the role (one read, no
 * writes); otherwise the role's own profile ({@link instanceProfileName}) is made to exist and
 * hold the role, and that is the answer. A changed role therefore gets a new profile, and the
 * old one keeps its role for the nodes launched with it until garbage collection deletes it
 * once no EC2NodeClass status and no NodeClaim names it.
 *
 * Safe to run concurrently and repeatedly: GetInstanceProfile → NoSuchEntity →
 * CreateInstanceProfile (EntityAlreadyExists: someone else won the race, read theirs) →
 * AddRoleToInstanceProfile (LimitExceeded: someone else added a role; fine when it is ours).
 *
 * @throws CloudError when IAM throttles or fails (retryable); other errors become an outcome.
 */
export async function resolveInstanceProfile(
  iam: IAMClient,
  request: InstanceProfileRequest,
): Promise<PartOutcome<string>> {
  if (request.instanceProfile !== undefined)
    return verifyInstanceProfile(iam, request.instanceProfile, request);
  if (request.role === undefined || request.role === '') {
    return unresolved(
      'InstanceProfileNotFound',
      `EC2NodeClass ${request.nodeClassName} specifies neither role nor instanceProfile`,
    );
  }
  // AddRoleToInstanceProfile takes a role name, not a path: `/team/node-role` → `node-role`.
  const roleName = request.role.split('/').at(-1) ?? request.role;
  const current = request.currentProfile;
  const reading = `reading instance profile ${current} of EC2NodeClass ${request.nodeClassName}`;
  try {
    if (current !== undefined && (await holdsRole(iam, current, roleName))) return resolved(current);
  } catch (error) {
    return outcomeOfAwsError(reading, error);
  }
  return ensureRoleProfile(iam, request, roleName);
}

/** Whether the profile exists and holds the role (a profile holds at most one). */
async function holdsRole(iam: IAMClient, name: string, roleName: string): Promise<boolean> {
  const profile = await getProfile(iam, name);
  return profile?.Roles?.[0]?.RoleName === roleName;
}

/** Makes the role's own profile exist and hold the role (Karpenter's instanceprofile.go Create). */
async function ensureRoleProfile(
  iam: IAMClient,
  request: InstanceProfileRequest,
  roleName: string,
): Promise<PartOutcome<string>> {
  const name = instanceProfileName(
    request.clusterName,
    request.region,
    request.nodeClassName,
    request.nodeClassUid,
    roleName,
  );
  const doing = (what: string) =>
    `${what} instance profile ${name} for EC2NodeClass ${request.nodeClassName}`;
  try {
    let profile = await getProfile(iam, name);
    if (profile === undefined) profile = await createProfile(iam, name, request);
    const current = profile.Roles?.[0]?.RoleName;
    if (current === roleName) return resolved(name);
    if (current !== undefined) {
      // Only someone else's edit puts another role on a role's own profile: Karpenter's
      // ensureRole puts the right one back.
      await iam.send(
        new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: current }),
      );
    }
    try {
      await iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: roleName }));
    } catch (error) {
      if (!isCode(error, 'LimitExceeded')) throw error;
      // A concurrent resolve added a role between our read and our write.
      const holder = (await getProfile(iam, name))?.Roles?.[0]?.RoleName;
      if (holder !== roleName) {
        return unresolved(
          'InstanceProfileRoleConflict',
          `${doing('adding role')}: the profile already holds role ${holder ?? '(none)'}, not ${roleName}`,
        );
      }
    }
    return resolved(name);
  } catch (error) {
    if (isCode(error, 'NoSuchEntity') && /role/i.test((error as Error).message)) {
      return unresolved('RoleNotFound', `${doing('adding role to')}: role ${roleName} does not exist`);
    }
    return outcomeOfAwsError(doing('ensuring'), error);
  }
}

async function verifyInstanceProfile(
  iam: IAMClient,
  name: string,
  request: InstanceProfileRequest,
): Promise<PartOutcome<string>> {
  try {
    await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }));
    return resolved(name);
  } catch (error) {
    if (isCode(error, 'NoSuchEntity')) {
      return unresolved(
        'InstanceProfileNotFound',
        `instance profile ${name} of EC2NodeClass ${request.nodeClassName} does not exist`,
      );
    }
    return outcomeOfAwsError(
      `reading instance profile ${name} for EC2NodeClass ${request.nodeClassName}`,
      error,
    );
  }
}

async function getProfile(iam: IAMClient, name: string): Promise<InstanceProfile | undefined> {
  try {
    return (await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }))).InstanceProfile;
  } catch (error) {
    if (isCode(error, 'NoSuchEntity')) return undefined;
    throw error;
  }
}

async function createProfile(
  iam: IAMClient,
  name: string,
  request: InstanceProfileRequest,
): Promise<InstanceProfile> {
  const tags = instanceProfileTags(request.clusterName, request.region, request.nodeClassName, request.tags);
  try {
    const out = await iam.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: name,
        Path: instanceProfilePath(request.region, request.clusterName, request.nodeClassUid),
        Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
      }),
    );
    if (out.InstanceProfile !== undefined) return out.InstanceProfile;
    const created = await getProfile(iam, name);
    if (created === undefined)
      throw new CloudError(
        `CreateInstanceProfile ${name} returned no profile, and none can be read`,
        undefined,
        true,
      );
    return created;
  } catch (error) {
    if (!isCode(error, 'EntityAlreadyExists')) throw error;
    // Lost a race with a concurrent create: the winner's profile is the one to use.
    const existing = await getProfile(iam, name);
    if (existing === undefined) throw error;
    return existing;
  }
}

/** IAM's wire code (`NoSuchEntity`) and the SDK's class name (`NoSuchEntityException`) alike. */
function isCode(error: unknown, code: string): boolean {
  const name = awsErrorCode(error);
  return name === code || name === `${code}Exception`;
}
