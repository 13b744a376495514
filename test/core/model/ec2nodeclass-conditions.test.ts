import { describe, expect, it } from 'vitest';
import { buildNodeClassConditions } from '../../../shared/core/model/ec2nodeclass-conditions';

describe('buildNodeClassConditions', () => {
  it('is Unknown, ReconcilingDependents, while a dependent has not been resolved', () => {
    const conditions = buildNodeClassConditions(
      [
        { type: 'SubnetsReady', status: 'True' },
        { type: 'SecurityGroupsReady', status: 'True' },
        { type: 'AMIsReady', status: 'True' },
      ],
      [],
      Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    );
    expect(conditions.find((c) => c.type === 'InstanceProfileReady')).toMatchObject({
      status: 'Unknown',
      reason: 'AwaitingReconciliation',
    });
    expect(conditions.find((c) => c.type === 'Ready')).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'ReconcilingDependents',
      message: 'InstanceProfileReady=Unknown',
      lastTransitionTime: '2026-01-02T03:04:05Z',
    });
  });
});
