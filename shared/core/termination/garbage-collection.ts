import type { EC2NodeClass } from '../model/ec2nodeclass';
import type { ValidationError } from '../model/errors';
import { ANNOTATIONS } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import type { CloudInstance, InstanceProfileRecord } from '../ports/cloud';

/**
 * Garbage collection of what launches leave behind in AWS, decided from plain data: launch
 * templates no launch uses any more, and instance profiles no EC2NodeClass and no node holds.
 */

/** EC2's own tag on an instance launched from a launch template: the template's id. */
export const LAUNCH_TEMPLATE_ID_TAG = 'aws:ec2launchtemplate:id';
/**
 * How long a launch template stays after it was created or last launched from. Karpenter keeps
 * a template while its cache entry lives and deletes it on eviction (aws/karpenter-provider-aws
 * pkg/providers/launchtemplate `cachedEvictedFunc`); a provisioner container here trusts a
 * template for 5 minutes, so 10 minutes leaves it time to launch with what it found.
 */
export const LAUNCH_TEMPLATE_IDLE_MS = 10 * 60_000;
/** Karpenter's ProtectedProfilesTTL: a profile this young may not be in any status yet. */
export const PROFILE_PROTECTION_MS = 60 * 60_000;

/**
 * The launch templates (by id) still in use: those an instance of the cluster was launched from
 * within the last {@link LAUNCH_TEMPLATE_IDLE_MS}. Every other template of the cluster older than
 * that is unused — a new AMI, user data or security group made a new template, or its
 * EC2NodeClass is gone — and is deleted; a provisioner that needs it again creates it again.
 */
export function launchTemplatesInUse(instances: readonly CloudInstance[], now: number): string[] {
  const used = new Set<string>();
  for (const instance of instances) {
    const id = instance.tags[LAUNCH_TEMPLATE_ID_TAG];
    if (id && instance.launchTime !== undefined && now - instance.launchTime < LAUNCH_TEMPLATE_IDLE_MS)
      used.add(id);
  }
  return [...used];
}

/** What deciding which instance profiles are unused reads. */
export interface ProfileUsage {
  readonly now: number;
  /** The cluster's profiles (its IAM path). */
  readonly profiles: readonly InstanceProfileRecord[];
  /** Every NodeClaim, deleting ones included: a node still running holds its profile. */
  readonly nodeClaims: readonly NodeClaim[];
  /**
   * The profiles EC2NodeClasses launch with now: their status' `instanceProfile` and the name
   * podlift gives their role's profile.
   */
  readonly current: ReadonlySet<string>;
}

/**
 * The instance profiles to delete (aws/karpenter-provider-aws pkg/controllers/nodeclass/
 * garbagecollection `shouldDeleteProfile`): not what any EC2NodeClass launches with now, not
 * named by any NodeClaim (`karpenter.k8s.aws/instance-profile-name`), and older than
 * {@link PROFILE_PROTECTION_MS} — profiles of deleted EC2NodeClasses and of replaced roles,
 * once their last node is gone.
 */
export function unusedInstanceProfiles(usage: ProfileUsage): string[] {
  const held = new Set(usage.nodeClaims.flatMap((c) => c.annotations[ANNOTATIONS.instanceProfile] ?? []));
  return usage.profiles
    .filter(
      (p) =>
        !usage.current.has(p.name) &&
        !held.has(p.name) &&
        p.createdAt !== undefined &&
        usage.now - p.createdAt >= PROFILE_PROTECTION_MS,
    )
    .map((p) => p.name);
}

/**
 * Whether profile collection must wait: an EC2NodeClass that did not validate is missing from
 * the snapshot, so the profile it launches with would look unused.
 */
export function nodeClassesIncomplete(invalid: readonly ValidationError[]): boolean {
  return invalid.some((e) => e.location.object?.startsWith('EC2NodeClass/') ?? false);
}

/** The status' `instanceProfile` of an EC2NodeClass read from the cluster, if any. */
export function statusInstanceProfile(nodeClass: EC2NodeClass): string | undefined {
  const profile = nodeClass.status?.instanceProfile;
  return typeof profile === 'string' && profile !== '' ? profile : undefined;
}
