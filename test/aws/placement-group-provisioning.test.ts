import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../sim/fakes/kube';
import {
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  scheduledEvent,
  seedPendingPods,
} from '../functions/provisioner/world';

/**
 * The provisioner end to end with an EC2NodeClass that selects a placement group: resolved from
 * EC2, launched into it, and the NodeClaim labelled as Karpenter labels it.
 */

const claims = (pw: ProvisionerWorld): KubeObject[] =>
  pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items;

async function withPlacementGroup(selector: Record<string, string>): Promise<ProvisionerWorld> {
  const pw = await provisionerWorld();
  const store = pw.world.fakes.kube.store;
  const nodeClass = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default');
  store.update('ec2nodeclasses.karpenter.k8s.aws', {
    ...nodeClass,
    spec: { ...(nodeClass.spec as object), placementGroupSelector: selector },
  });
  return pw;
}

describe('provisioner: EC2NodeClass placementGroupSelector', () => {
  it('launches into the selected group and labels the NodeClaim with its id and the default tenancy', async () => {
    const w = await withPlacementGroup({ name: 'hpc' });
    const group = w.world.fakes.ec2.addPlacementGroup({ name: 'hpc', strategy: 'cluster' });
    seedPendingPods(w.world, 2);

    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));

    const [claim] = claims(w);
    expect(claim?.metadata.labels).toMatchObject({
      'karpenter.k8s.aws/placement-group-id': group.GroupId,
      'karpenter.k8s.aws/instance-tenancy': 'default',
    });
    const instances = w.world.fakes.ec2.listInstances();
    expect(instances).toHaveLength(1);
    expect(instances[0]?.Placement).toMatchObject({ GroupName: 'hpc', GroupId: group.GroupId });
  });

  it('launches nothing while the selected group does not exist', async () => {
    const w = await withPlacementGroup({ name: 'missing' });
    seedPendingPods(w.world, 2);

    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));

    expect(claims(w)).toStrictEqual([]);
    expect(w.world.fakes.ec2.listInstances()).toStrictEqual([]);
  });
});
