import { describe, expect, it } from 'vitest';
import { LABEL_ARCH, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE } from '../../../shared/core/model/labels';
import { Requirements } from '../../../shared/core/model/requirements';
import { newNodeClaim } from '../../../shared/core/provisioning/nodeclaims';
import type { NodeClaimPlan } from '../../../shared/core/scheduling/types';
import { nodeClass, nodePool } from '../../../sim/world/builders';

const plan = {
  nodePool: 'default',
  nodeClass: 'default',
  instanceTypeOptions: [
    { name: 'm5.large', price: 0.03, capacityType: 'spot', zone: 'us-east-1a' },
    { name: 'm5.xlarge', price: 0.06, capacityType: 'spot', zone: 'us-east-1b' },
  ],
  requirements: Requirements.from([{ key: LABEL_ARCH, operator: 'In', values: ['amd64'] }]),
  labels: {},
  taints: [],
  startupTaints: [],
  requests: { cpu: 1 },
} as unknown as NodeClaimPlan;

describe('newNodeClaim (nodeclaimtemplate.go ToNodeClaim)', () => {
  it("writes a dynamic NodePool's NodeClaim with its instance-type options and their capacity type", () => {
    const claim = newNodeClaim(plan, nodePool(), nodeClass());
    expect(claim.spec.requirements).toStrictEqual([
      { key: LABEL_ARCH, operator: 'In', values: ['amd64'] },
      { key: LABEL_INSTANCE_TYPE, operator: 'In', values: ['m5.large', 'm5.xlarge'] },
      { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['spot'] },
    ]);
    // Well-known labels are not pinned from the options (resolveCustomLabelsFromRequirements).
    expect(claim.labels?.[LABEL_INSTANCE_TYPE]).toBeUndefined();
  });

  it('leaves a static NodePool\'s NodeClaim with the plan\'s requirements: its launch chooses ("For static we let cloudprovider.Create()")', () => {
    const claim = newNodeClaim(plan, { ...nodePool(), replicas: 2 }, nodeClass());
    expect(claim.spec.requirements).toStrictEqual([{ key: LABEL_ARCH, operator: 'In', values: ['amd64'] }]);
  });
});
