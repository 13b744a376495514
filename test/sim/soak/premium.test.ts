import type { Instance } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import type { PriceTable } from '../../../shared/core/catalog/instance-type';
import type { KubeObject } from '../../../sim/fakes/kube';
import { cheapestOptionsRatio } from '../../../sim/soak/bound';
import { costReport } from '../../../sim/soak/cost-report';
import { allocationPremium } from '../../../sim/soak/premium';

const prices: PriceTable = {
  onDemand: new Map([
    ['t3.medium', 0.0416],
    ['m5.large', 0.096],
    ['c5.large', 0.085],
  ]),
  spot: new Map([
    ['t3.medium', new Map([['us-east-1a', 0.0183]])],
    ['m5.large', new Map([['us-east-1a', 0.0326]])],
  ]),
};

const instance = (id: string, type: string, options: { spot?: boolean; state?: string } = {}): Instance => ({
  InstanceId: id,
  InstanceType: type as Instance['InstanceType'],
  State: { Name: (options.state ?? 'running') as 'running' },
  Placement: { AvailabilityZone: 'us-east-1a' },
  ...(options.spot === false ? {} : { InstanceLifecycle: 'spot' }),
});

const claim = (id: string, types?: string[], operator = 'In'): KubeObject =>
  ({
    metadata: { name: `claim-${id}` },
    spec: {
      requirements: [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
        ...(types ? [{ key: 'node.kubernetes.io/instance-type', operator, values: types }] : []),
      ],
    },
    status: { providerID: `aws:///us-east-1a/${id}` },
  }) as KubeObject;

describe('allocationPremium', () => {
  it("adds what an instance costs over its NodeClaim's cheapest option in its zone and capacity type", () => {
    const claims = [claim('i-1', ['t3.medium', 'm5.large'])];
    expect(allocationPremium([instance('i-1', 'm5.large')], claims, prices)).toBeCloseTo(0.0326 - 0.0183, 9);
    expect(allocationPremium([instance('i-1', 't3.medium')], claims, prices)).toBe(0);
    // Cheaper than every option its NodeClaim lists: nothing, never a negative premium.
    expect(allocationPremium([instance('i-1', 't3.medium')], [claim('i-1', ['m5.large'])], prices)).toBe(0);
    // On-demand: the on-demand prices.
    expect(allocationPremium([instance('i-1', 'm5.large', { spot: false })], claims, prices)).toBeCloseTo(
      0.096 - 0.0416,
      9,
    );
  });

  it('prices a spot option without a spot price in the zone at on-demand, as the world charges it', () => {
    // c5.large has no spot price: its option counts at $0.085, above t3.medium's spot $0.0183.
    const claims = [claim('i-1', ['c5.large', 't3.medium'])];
    expect(allocationPremium([instance('i-1', 'c5.large')], claims, prices)).toBeCloseTo(0.085 - 0.0183, 9);
  });

  it('adds nothing for an instance without a NodeClaim, a NodeClaim without an instance-type In, or one not running', () => {
    expect(allocationPremium([instance('i-2', 'm5.large')], [claim('i-1', ['t3.medium'])], prices)).toBe(0);
    expect(allocationPremium([instance('i-1', 'm5.large')], [claim('i-1')], prices)).toBe(0);
    expect(
      allocationPremium([instance('i-1', 'm5.large')], [claim('i-1', ['t3.medium'], 'NotIn')], prices),
    ).toBe(0);
    const claims = [claim('i-1', ['t3.medium', 'm5.large'])];
    expect(allocationPremium([instance('i-1', 'm5.large', { state: 'shutting-down' })], claims, prices)).toBe(
      0,
    );
    expect(
      allocationPremium([instance('i-1', 'm5.large', { state: 'pending' })], claims, prices),
    ).toBeGreaterThan(0);
  });

  it('sums over the instances', () => {
    const claims = [claim('i-1', ['t3.medium', 'm5.large']), claim('i-2', ['t3.medium', 'm5.large'])];
    const both = [instance('i-1', 'm5.large'), instance('i-2', 'm5.large')];
    expect(allocationPremium(both, claims, prices)).toBeCloseTo(2 * (0.0326 - 0.0183), 9);
  });
});

describe('cost ÷ bound at the cheapest options', () => {
  it('takes the premium off the cost, per point and per phase', () => {
    expect(
      cheapestOptionsRatio({ atMs: 0, pods: 1, dollarsPerHour: 0.5, bound: 0.25, premium: 0.1 }),
    ).toBeCloseTo(1.6);
    expect(cheapestOptionsRatio({ atMs: 0, pods: 1, dollarsPerHour: 0.5, bound: 0.25 })).toBeUndefined();
    expect(
      cheapestOptionsRatio({ atMs: 0, pods: 0, dollarsPerHour: 0.5, bound: 0, premium: 0 }),
    ).toBeUndefined();
    const report = costReport({
      points: [
        { atMs: 60_000, pods: 4, dollarsPerHour: 3, bound: 1, premium: 1 },
        { atMs: 700_000, pods: 4, dollarsPerHour: 1.5, bound: 1, premium: 0.25 },
        { atMs: 800_000, pods: 4, dollarsPerHour: 1.5, bound: 1 },
      ],
      changesMs: [0],
      windowMs: 135_000,
      simulatedMs: 3_600_000,
      evictions: 0,
      disruptedNodes: 0,
      savedDollarsPerHour: 0,
    });
    expect(report.settling.cheapestOptions).toBeCloseTo(2);
    expect(report.settled.cheapestOptions).toBeCloseTo(1.25);
    expect(report.whole.cheapestOptions).toBeCloseTo(1.625);
  });
});
