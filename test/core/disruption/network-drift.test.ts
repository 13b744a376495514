import { describe, expect, it } from 'vitest';
import { networkDrift } from '../../../shared/core/disruption/methods';

const resolved = (subnets: readonly string[], groups: readonly string[]) => ({
  subnets: subnets.map((id) => ({ id, zone: 'us-east-1a', availableIpAddressCount: 100 })),
  securityGroups: groups.map((id) => ({ id })),
});

describe('networkDrift', () => {
  it('is nothing while the instance runs in a selected subnet with exactly the selected groups', () => {
    expect(
      networkDrift(
        { subnetId: 'subnet-a', securityGroupIds: ['sg-2', 'sg-1'] },
        resolved(['subnet-b', 'subnet-a'], ['sg-1', 'sg-2']),
      ),
    ).toBeUndefined();
  });

  it('names the subnet when it is no longer selected', () => {
    expect(
      networkDrift({ subnetId: 'subnet-a', securityGroupIds: ['sg-1'] }, resolved(['subnet-b'], ['sg-1'])),
    ).toBe('subnet subnet-a is no longer selected');
  });

  it('drifts when a security group was added to or removed from the selection (set equality)', () => {
    expect(
      networkDrift(
        { subnetId: 'subnet-a', securityGroupIds: ['sg-1'] },
        resolved(['subnet-a'], ['sg-1', 'sg-2']),
      ),
    ).toBe('security groups sg-1 are no longer the selected sg-1, sg-2');
    expect(
      networkDrift(
        { subnetId: 'subnet-a', securityGroupIds: ['sg-1', 'sg-2'] },
        resolved(['subnet-a'], ['sg-1']),
      ),
    ).toMatch(/^security groups sg-1, sg-2 are no longer/);
  });

  it('decides nothing from an empty resolution or an instance EC2 said nothing about', () => {
    expect(
      networkDrift({ subnetId: 'subnet-a', securityGroupIds: ['sg-1'] }, resolved([], [])),
    ).toBeUndefined();
    expect(networkDrift({}, resolved(['subnet-b'], ['sg-2']))).toBeUndefined();
  });
});
