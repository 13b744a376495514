import { CreateLaunchTemplateCommand, CreateTagsCommand, type Tag } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { TAG_LIMITS, validateTags } from '../../../../../sim/fakes/aws/ec2/tags';
import { ec2World } from '../../../../../sim/world/aws/ec2-world';
import { SUBNET_A } from '../../../../../sim/world/aws/region';

const fail = (code: string, message: string) => Object.assign(new Error(message), { name: code });
const tags = (count: number, prefix = 'team'): Tag[] =>
  Array.from({ length: count }, (_, i) => ({ Key: `${prefix}-${i}`, Value: 'x' }));

describe('validateTags (EC2 tag restrictions)', () => {
  it('takes 50 tags with 128-character keys and 256-character values', () => {
    expect(TAG_LIMITS).toEqual({ perResource: 50, keyLength: 128, valueLength: 256 });
    expect(() =>
      validateTags([...tags(49), { Key: 'k'.repeat(128), Value: 'v'.repeat(256) }], fail),
    ).not.toThrow();
  });

  it('refuses a 51st tag with TagLimitExceeded; the same key twice is one tag', () => {
    expect(() => validateTags(tags(51), fail)).toThrow(expect.objectContaining({ name: 'TagLimitExceeded' }));
    expect(() => validateTags([...tags(50), { Key: 'team-0', Value: 'y' }], fail)).not.toThrow();
  });

  it('refuses reserved aws: keys in any case, and keys or values too long, with InvalidParameterValue', () => {
    for (const bad of [
      { Key: 'aws:cloudformation:stack-name', Value: 'x' },
      { Key: 'AWS:Owner', Value: 'x' },
      { Key: 'k'.repeat(129), Value: 'x' },
      { Key: 'team', Value: 'v'.repeat(257) },
    ]) {
      expect(() => validateTags([bad], fail)).toThrow(
        expect.objectContaining({ name: 'InvalidParameterValue' }),
      );
    }
    // Unicode characters, not UTF-16 units, count: 128 emoji are 256 units.
    expect(() => validateTags([{ Key: '🚀'.repeat(128), Value: '' }], fail)).not.toThrow();
  });
});

describe('FakeEc2 tag validation', () => {
  it('CreateTags counts the tags a resource already has, except aws: ones, and tags nothing on overflow', async () => {
    const { client, fake } = ec2World();
    const subnet = 'subnet-00000000000000c01';
    fake.addSubnet({
      id: subnet,
      availabilityZone: 'us-east-1a',
      tags: { 'aws:cloudformation:stack-name': 'network' },
    });
    await client.send(new CreateTagsCommand({ Resources: [subnet], Tags: tags(40, 'first') }));
    await client.send(new CreateTagsCommand({ Resources: [subnet], Tags: tags(10, 'second') }));
    await expect(
      client.send(new CreateTagsCommand({ Resources: [SUBNET_A, subnet], Tags: tags(1, 'third') })),
    ).rejects.toMatchObject({
      name: 'TagLimitExceeded',
      message: 'The maximum number of Tags for a resource has been reached.',
    });
    // Overwriting existing keys adds nothing.
    await client.send(new CreateTagsCommand({ Resources: [subnet], Tags: tags(40, 'first') }));
    const [a, c] = fake.describeSubnets({ SubnetIds: [SUBNET_A, subnet] }).Subnets ?? [];
    expect(a?.Tags?.some((t) => t.Key === 'third-0')).toBe(false);
    expect(c?.Tags).toHaveLength(51);
  });

  it('CreateLaunchTemplate refuses bad tags and resource types other than launch-template', async () => {
    const { client } = ec2World();
    const create = (TagSpecifications: { ResourceType: 'launch-template' | 'instance'; Tags: Tag[] }[]) =>
      client.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: 'podlift/demo/0000000000000001',
          LaunchTemplateData: {},
          TagSpecifications,
        }),
      );
    await expect(create([{ ResourceType: 'launch-template', Tags: tags(51) }])).rejects.toMatchObject({
      name: 'TagLimitExceeded',
    });
    await expect(
      create([{ ResourceType: 'launch-template', Tags: [{ Key: 'aws:x', Value: 'y' }] }]),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: "Tag keys starting with 'aws:' are reserved for internal use",
    });
    await expect(create([{ ResourceType: 'instance', Tags: tags(1) }])).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: "'instance' is not a valid taggable resource type for this operation.",
    });
    // Two specs of one type land on one resource: 30 + 30 is too many.
    await expect(
      create([
        { ResourceType: 'launch-template', Tags: tags(30, 'a') },
        { ResourceType: 'launch-template', Tags: tags(30, 'b') },
      ]),
    ).rejects.toMatchObject({ name: 'TagLimitExceeded' });
    await expect(create([{ ResourceType: 'launch-template', Tags: tags(50) }])).resolves.toBeDefined();
  });
});
