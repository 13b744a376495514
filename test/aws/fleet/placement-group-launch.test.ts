import { describe, expect, it } from 'vitest';
import type { EC2NodeClassStatus } from '../../../shared/core/model/ec2nodeclass-status';
import { CloudError } from '../../../shared/core/model/errors';
import {
  LABEL_INSTANCE_TENANCY,
  LABEL_PLACEMENT_GROUP_ID,
  LABEL_PLACEMENT_GROUP_PARTITION,
} from '../../../shared/core/model/labels';
import {
  launcherWorld,
  launchInstanceTypes,
  launchRequest,
  RESOLVED_NODE_CLASS,
  worldLauncher,
  worldTemplateProvider,
} from '../../../sim/world/aws/launch-world';
import { nodeClaim } from '../../../sim/world/builders';

/** A launcher that makes its templates from the resolved node class, and a placement group. */
async function placementWorld(strategy: 'cluster' | 'partition' | 'spread', partitionCount?: number) {
  const w = await launcherWorld();
  const group = w.fake.addPlacementGroup({
    name: 'hpc',
    strategy,
    ...(partitionCount === undefined ? {} : { partitionCount }),
  });
  const resolved = {
    ...RESOLVED_NODE_CLASS,
    placementGroup: {
      id: group.GroupId!,
      name: 'hpc',
      strategy,
      ...(partitionCount === undefined ? {} : { partitionCount }),
    },
  };
  const launcher = worldLauncher(w, w.policy, { launchTemplates: worldTemplateProvider(w) });
  return { ...w, launcher, resolved, groupId: group.GroupId! };
}

describe('Ec2InstanceLauncher: placement groups', () => {
  it('launches into the resolved placement group by id and labels the NodeClaim with it, as Karpenter does', async () => {
    const { launcher, fake, resolved, groupId } = await placementWorld('cluster');

    const launched = await launcher.launch(placementRequest(resolved, 'default-aaaa', ['us-east-1a']));

    const instance = fake.instance(launched.instanceId);
    expect(instance?.Placement).toMatchObject({ GroupName: 'hpc', GroupId: groupId, Tenancy: 'default' });
    expect(launched.labels).toStrictEqual({
      [LABEL_INSTANCE_TENANCY]: 'default',
      [LABEL_PLACEMENT_GROUP_ID]: groupId,
    });
  });

  it("is refused by EC2 in another zone than the cluster group's instances (InvalidPlacementGroup.InUse)", async () => {
    const { launcher, resolved } = await placementWorld('cluster');
    const first = await launcher.launch(placementRequest(resolved, 'default-aaaa', ['us-east-1a']));
    expect(first.zone).toBe('us-east-1a');

    const error = await launcher
      .launch(placementRequest(resolved, 'default-bbbb', ['us-east-1b']))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CloudError);
    expect(error).toMatchObject({ code: 'InvalidPlacementGroup.InUse', retryable: false });
    expect((error as Error).message).toContain(
      "placement group 'hpc' is in use in another availability zone: us-east-1a",
    );
    // The same zone still launches.
    expect((await launcher.launch(placementRequest(resolved, 'default-cccc', ['us-east-1a']))).zone).toBe(
      'us-east-1a',
    );
  });

  it('is refused when the group was deleted after the node class resolved it (InvalidPlacementGroup.Unknown)', async () => {
    const { launcher, fake, resolved } = await placementWorld('spread');
    fake.setPlacementGroupState('hpc', 'deleted');

    const error = await launcher
      .launch(placementRequest(resolved, 'default-aaaa', ['us-east-1a']))
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'InvalidPlacementGroup.Unknown', retryable: false });
  });

  it('launches into the lowest partition the NodeClaim allows, and labels it', async () => {
    const { launcher, fake, resolved, fleetCalls } = await placementWorld('partition', 3);
    const request = placementRequest(resolved, 'default-aaaa', ['us-east-1a'], ['3', '2']);

    const launched = await launcher.launch(request);

    expect(fake.instance(launched.instanceId)?.Placement?.PartitionNumber).toBe(2);
    expect(launched.labels?.[LABEL_PLACEMENT_GROUP_PARTITION]).toBe('2');
    const template = fleetCalls()[0]!.LaunchTemplateConfigs![0]!.LaunchTemplateSpecification!;
    expect(
      fake.launchTemplateData(template.LaunchTemplateName ?? template.LaunchTemplateId!)?.Placement,
    ).toStrictEqual({
      GroupId: resolved.placementGroup.id,
      PartitionNumber: 2,
    });
  });

  it('reads back the partition EC2 chose when the NodeClaim named none, and labels it', async () => {
    const { launcher, fake, resolved } = await placementWorld('partition', 2);
    const first = await launcher.launch(placementRequest(resolved, 'default-aaaa', ['us-east-1a']));
    const second = await launcher.launch(placementRequest(resolved, 'default-bbbb', ['us-east-1a']));

    const partitions = [first, second].map((l) => fake.instance(l.instanceId)?.Placement?.PartitionNumber);
    expect(partitions).toStrictEqual([1, 2]);
    expect([first, second].map((l) => l.labels?.[LABEL_PLACEMENT_GROUP_PARTITION])).toStrictEqual(['1', '2']);
    // Found again by its NodeClaim tag, the instance keeps its partition label.
    const again = await launcher.launch(placementRequest(resolved, 'default-bbbb', ['us-east-1a']));
    expect(again.labels?.[LABEL_PLACEMENT_GROUP_PARTITION]).toBe('2');
  });
});

function placementRequest(
  resolved: EC2NodeClassStatus,
  name: string,
  zones: readonly string[],
  partitions?: readonly string[],
) {
  const claim = nodeClaim({ name, uid: name, capacityTypes: ['on-demand'], zones: [...zones] });
  return launchRequest(launchInstanceTypes(), {
    types: ['m5.large', 'c5.xlarge'],
    nodeClaim:
      partitions === undefined
        ? claim
        : {
            ...claim,
            spec: {
              ...claim.spec,
              requirements: [
                ...claim.spec.requirements,
                { key: LABEL_PLACEMENT_GROUP_PARTITION, operator: 'In', values: [...partitions] },
              ],
            },
          },
    resolved,
  });
}
