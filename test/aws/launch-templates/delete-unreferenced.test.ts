import { describe, expect, it } from 'vitest';
import { isCloudError } from '../../../shared/core/model/errors';
import { launchRequest, launchTemplateWorld } from '../../../sim/world/aws/launch-template-world';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';

type World = ReturnType<typeof launchTemplateWorld>;

/** Creates a template directly in the fake (as another tool or cluster would), tagged for `clusterTag`. */
function seed(fake: World['fake'], name: string, clusterTag: string): void {
  fake.createLaunchTemplate({
    LaunchTemplateName: name,
    LaunchTemplateData: { ImageId: 'ami-0seed' },
    TagSpecifications: [
      { ResourceType: 'launch-template', Tags: [{ Key: 'karpenter.k8s.aws/cluster', Value: clusterTag }] },
    ],
  });
}

function names(fake: World['fake']): string[] {
  return (
    fake
      .describeLaunchTemplates({})
      .LaunchTemplates?.map((t) => t.LaunchTemplateName ?? '')
      .sort() ?? []
  );
}

describe('Ec2LaunchTemplateProvider.deleteUnreferenced', () => {
  it("deletes only this cluster's podlift templates that are unused and past the grace period", async () => {
    const { provider, fake, clock } = launchTemplateWorld({ deleteGraceMs: 600_000 });
    const [used] = await provider.ensure(launchRequest(), cluster);
    const [unused] = await provider.ensure(launchRequest({ nodePool: 'batch' }), cluster);
    seed(fake, 'podlift/other/0123456789abcdef', 'other');
    seed(fake, 'karpenter.k8s.aws/1234567890', 'demo');
    seed(fake, 'podlift/demo-two/0123456789abcdef', 'demo-two');
    clock.advance(600_000);
    seed(fake, 'podlift/demo/fresh00000000000', 'demo');

    const deleted = await provider.deleteUnreferenced('demo', [used.launchTemplateName]);
    expect(deleted).toEqual([unused.launchTemplateName]);
    expect(names(fake)).toEqual(
      [
        'karpenter.k8s.aws/1234567890',
        'podlift/demo-two/0123456789abcdef',
        'podlift/demo/fresh00000000000',
        'podlift/other/0123456789abcdef',
        used.launchTemplateName,
      ].sort(),
    );
    const listing = fake.callsTo('DescribeLaunchTemplates').at(-1);
    expect(listing).toMatchObject({ Filters: [{ Name: 'tag:karpenter.k8s.aws/cluster', Values: ['demo'] }] });

    // The provider forgot the deleted template, so ensuring it again recreates it.
    const [again] = await provider.ensure(launchRequest({ nodePool: 'batch' }), cluster);
    expect(again.launchTemplateName).toBe(unused.launchTemplateName);
    expect(names(fake)).toContain(unused.launchTemplateName);
  });

  it('reads every page of the listing', async () => {
    const { provider, fake, clock } = launchTemplateWorld();
    for (let i = 0; i < 205; i++) seed(fake, `podlift/demo/${i.toString(16).padStart(16, '0')}`, 'demo');
    clock.advance(3_600_000);
    const deleted = await provider.deleteUnreferenced('demo', []);
    expect(deleted).toHaveLength(205);
    expect(names(fake)).toEqual([]);
    const pages = fake.callsTo('DescribeLaunchTemplates') as { NextToken?: string }[];
    expect(pages).toHaveLength(2);
    expect(pages[1].NextToken).toBeDefined();
  });

  it('counts templates already gone as deleted, tries every deletion, then reports the failures', async () => {
    const { provider, fake, clock } = launchTemplateWorld();
    for (const n of ['a', 'b', 'c']) seed(fake, `podlift/demo/${n.repeat(16)}`, 'demo');
    clock.advance(3_600_000);
    fake.failNext('DeleteLaunchTemplate', 'InvalidLaunchTemplateId.NotFound');
    fake.failNext('DeleteLaunchTemplate', 'UnauthorizedOperation', { message: 'not allowed' });
    const error = await provider.deleteUnreferenced('demo', []).catch((e: unknown) => e);
    expect(isCloudError(error)).toBe(true);
    expect(isCloudError(error) && error.retryable).toBe(false);
    expect(String(error)).toContain(
      `deleting unused launch templates of cluster demo: 1 of 3 failed: deleting launch template podlift/demo/${'b'.repeat(16)}: UnauthorizedOperation: not allowed`,
    );
    expect(fake.callsTo('DeleteLaunchTemplate')).toHaveLength(3);
    expect(names(fake)).toEqual([`podlift/demo/${'a'.repeat(16)}`, `podlift/demo/${'b'.repeat(16)}`]);
  });

  it('retries a throttled listing and deletion', async () => {
    const { provider, fake, clock, sleeps } = launchTemplateWorld();
    seed(fake, `podlift/demo/${'a'.repeat(16)}`, 'demo');
    clock.advance(700_000);
    fake.throttle('DescribeLaunchTemplates');
    fake.throttle('DeleteLaunchTemplate');
    expect(await provider.deleteUnreferenced('demo', [])).toEqual([`podlift/demo/${'a'.repeat(16)}`]);
    expect(names(fake)).toEqual([]);
    expect(fake.callsTo('DeleteLaunchTemplate')).toHaveLength(2);
    expect(sleeps).toHaveLength(2);
  });
});
