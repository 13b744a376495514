import { describe, expect, it } from 'vitest';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TENANCY,
  LABEL_INSTANCE_TYPE,
  LABEL_PLACEMENT_GROUP_ID,
} from '../../../shared/core/model/labels';
import type { LaunchedInstance } from '../../../shared/core/model/nodeclaim';
import { launchRecord } from '../../../shared/core/provisioning/nodeclaims';

const INSTANCE: LaunchedInstance = {
  instanceId: 'i-0123456789abcdef0',
  providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  capacityType: 'on-demand',
};

describe('launchRecord', () => {
  it("labels the NodeClaim with the launch's tenancy and placement group, as Karpenter's instanceToNodeClaim does", () => {
    const record = launchRecord(
      {
        ...INSTANCE,
        labels: { [LABEL_INSTANCE_TENANCY]: 'default', [LABEL_PLACEMENT_GROUP_ID]: 'pg-0123456789abcdef0' },
      },
      undefined,
      undefined,
      undefined,
    );
    expect(record.metadata.labels).toStrictEqual({
      [LABEL_INSTANCE_TENANCY]: 'default',
      [LABEL_PLACEMENT_GROUP_ID]: 'pg-0123456789abcdef0',
      [LABEL_INSTANCE_TYPE]: 'm5.large',
      'topology.kubernetes.io/zone': 'us-east-1a',
      [LABEL_CAPACITY_TYPE]: 'on-demand',
    });
  });

  it('does not let launch labels override the instance type, zone or capacity type it launched as', () => {
    const record = launchRecord(
      { ...INSTANCE, labels: { [LABEL_INSTANCE_TYPE]: 'x', [LABEL_CAPACITY_TYPE]: 'spot' } },
      undefined,
      undefined,
      undefined,
    );
    expect(record.metadata.labels?.[LABEL_INSTANCE_TYPE]).toBe('m5.large');
    expect(record.metadata.labels?.[LABEL_CAPACITY_TYPE]).toBe('on-demand');
  });
});
