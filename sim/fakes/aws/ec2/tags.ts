import type {
  CreateTagsCommandInput,
  CreateTagsCommandOutput,
  Tag,
  TagSpecification,
} from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Fail } from './context';

/** Tags as a compact record, for seeding. */
export type TagRecord = Readonly<Record<string, string>>;

/** A seed's tag record as EC2's tag list. */
export function tagList(tags: TagRecord | undefined): Tag[] {
  return Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
}

/** The tags a request's TagSpecifications give one resource type. */
export function tagsFor(specs: readonly TagSpecification[] | undefined, resourceType: string): Tag[] {
  return (specs ?? []).filter((s) => s.ResourceType === resourceType).flatMap((s) => s.Tags ?? []);
}

/** `base` with `updates` applied: same keys replaced in place, new keys appended. */
export function mergeTags(base: readonly Tag[], updates: readonly Tag[]): Tag[] {
  const merged = base.map((tag) => ({ ...tag }));
  for (const tag of updates) {
    const existing = merged.find((t) => t.Key === tag.Key);
    if (existing !== undefined) existing.Value = tag.Value ?? '';
    else merged.push({ Key: tag.Key, Value: tag.Value ?? '' });
  }
  return merged;
}

/**
 * EC2's limits on the tags a user gives a resource ("Tag restrictions" in the EC2 user guide):
 * 50 per resource, keys of at most 128 Unicode characters, values of at most 256. Tags whose
 * key starts with `aws:` are EC2's own (e.g. `aws:ec2:fleet-id`): users may not set them and
 * they do not count towards the 50.
 */
export const TAG_LIMITS = { perResource: 50, keyLength: 128, valueLength: 256 } as const;

/** Whether a key is in AWS's reserved namespace, in any letter case. */
function isAwsKey(key: string | undefined): boolean {
  return (key ?? '').toLowerCase().startsWith('aws:');
}

/** Length in Unicode characters (code points), as EC2 counts, not UTF-16 units. */
function characters(text: string): number {
  return [...text].length;
}

/**
 * Refuses tags given for one resource as EC2 does: a reserved `aws:` key, a key over 128 or a
 * value over 256 characters with `InvalidParameterValue`; more than 50 tags (not counting
 * `aws:` ones) with `TagLimitExceeded`. For every operation that takes tags: CreateTags, and
 * the TagSpecifications of CreateLaunchTemplate and CreateFleet (see
 * {@link validateTagSpecifications}).
 */
export function validateTags(tags: readonly Tag[], fail: Ec2Fail): void {
  for (const { Key: key = '', Value: value = '' } of tags) {
    if (isAwsKey(key)) {
      throw fail('InvalidParameterValue', "Tag keys starting with 'aws:' are reserved for internal use");
    }
    if (characters(key) > TAG_LIMITS.keyLength) {
      throw fail(
        'InvalidParameterValue',
        `Tag key exceeds the maximum length of ${TAG_LIMITS.keyLength} characters: '${key}'`,
      );
    }
    if (characters(value) > TAG_LIMITS.valueLength) {
      throw fail(
        'InvalidParameterValue',
        `Tag value exceeds the maximum length of ${TAG_LIMITS.valueLength} characters for key '${key}'`,
      );
    }
  }
  validateTagCount(tags, fail);
}

/**
 * {@link validateTags} for each resource type of a request's TagSpecifications, the specs of
 * one type taken together, since they all land on the same resource.
 */
export function validateTagSpecifications(
  specs: readonly TagSpecification[] | undefined,
  fail: Ec2Fail,
): void {
  const types = new Set((specs ?? []).map((s) => s.ResourceType ?? ''));
  for (const type of types) validateTags(tagsFor(specs, type), fail);
}

/** TagLimitExceeded when a resource would hold more than 50 user tags (distinct keys, `aws:` ones excluded). */
function validateTagCount(tags: readonly Tag[], fail: Ec2Fail): void {
  const keys = new Set(tags.filter((t) => !isAwsKey(t.Key)).map((t) => t.Key));
  if (keys.size > TAG_LIMITS.perResource) {
    throw fail('TagLimitExceeded', 'The maximum number of Tags for a resource has been reached.');
  }
}

/** A resource CreateTags can tag, found by id. */
export type Taggable = { Tags?: Tag[] };

/**
 * CreateTags over every resource family: refuses tags as {@link validateTags} does (the 50
 * counted with the tags each resource already has), and an unknown id with
 * InvalidInstanceID.NotFound for instances, InvalidID otherwise. Nothing is tagged unless
 * every resource can be.
 */
export function createTags(
  input: CreateTagsCommandInput,
  find: (id: string) => Taggable | undefined,
  fail: Ec2Fail,
): OperationOutput<CreateTagsCommandOutput> {
  const tags = input.Tags ?? [];
  validateTags(tags, fail);
  const targets = (input.Resources ?? []).map((id) => {
    const found = find(id);
    if (found !== undefined) return found;
    if (id.startsWith('i-'))
      throw fail('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
    throw fail('InvalidID', `The ID '${id}' is not valid`);
  });
  const merged = targets.map((target) => mergeTags(target.Tags ?? [], tags));
  for (const tagsAfter of merged) validateTagCount(tagsAfter, fail);
  targets.forEach((target, i) => {
    target.Tags = merged[i];
  });
  return {};
}
