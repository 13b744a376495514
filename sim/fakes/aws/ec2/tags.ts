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

/** A resource CreateTags can tag, found by id. */
export type Taggable = { Tags?: Tag[] };

/**
 * CreateTags over every resource family: refuses `aws:` keys as EC2 does, and an unknown id
 * with InvalidInstanceID.NotFound for instances, InvalidID otherwise.
 */
export function createTags(
  input: CreateTagsCommandInput,
  find: (id: string) => Taggable | undefined,
  fail: Ec2Fail,
): OperationOutput<CreateTagsCommandOutput> {
  const tags = input.Tags ?? [];
  if (tags.some((tag) => tag.Key?.toLowerCase().startsWith('aws:'))) {
    throw fail('InvalidParameterValue', `Tag keys starting with 'aws:' are reserved for internal use`);
  }
  const targets = (input.Resources ?? []).map((id) => {
    const found = find(id);
    if (found !== undefined) return found;
    if (id.startsWith('i-'))
      throw fail('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
    throw fail('InvalidID', `The ID '${id}' is not valid`);
  });
  for (const target of targets) target.Tags = mergeTags(target.Tags ?? [], tags);
  return {};
}
