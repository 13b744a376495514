import { DescribeCapacityReservationsCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { selectCapacityReservations } from '../../../shared/aws/nodeclass/capacity-reservation-selection';
import type { EC2NodeClass, SelectorTerm } from '../../../shared/core/model/ec2nodeclass';
import { toStatusManifest } from '../../../shared/core/model/ec2nodeclass-conditions';
import { nodeClassReady } from '../../../shared/core/model/ec2nodeclass-status';
import { AMAZON, al2023Path, amiParameter, nodeClassWorld } from '../../../sim/world/aws/node-class-world';
import { CLUSTER } from '../../../sim/world/aws/region';
import { nodeClass } from '../../../sim/world/builders';

const X86 = 'ami-000000000000000a1';
/** The worlds' virtual clock starts at 2026-01-01T00:00:00Z. */
const START = Date.parse('2026-01-01T00:00:00Z');

function world() {
  return nodeClassWorld({
    ec2: {
      images: [{ id: X86, name: 'al2023-x86', creationDate: '2025-11-01T00:00:00Z', ...AMAZON }],
      capacityReservations: [
        {
          id: 'cr-0000000000000000b',
          instanceType: 'm5.large',
          availabilityZone: 'us-east-1a',
          totalInstanceCount: 4,
          availableInstanceCount: 3,
          tags: { team: 'ml' },
        },
        {
          id: 'cr-0000000000000000a',
          instanceType: 'p5.48xlarge',
          availabilityZone: 'us-east-1b',
          totalInstanceCount: 1,
          reservationType: 'capacity-block',
          endDate: START + 30 * 60_000,
          interruptible: false,
          tags: { team: 'ml' },
        },
        {
          id: 'cr-0000000000000000c',
          instanceType: 'm5.large',
          availabilityZone: 'us-east-1a',
          totalInstanceCount: 1,
          endDate: START - 1,
          tags: { team: 'ml' },
        },
        {
          id: 'cr-0000000000000000d',
          instanceType: 'c5.xlarge',
          availabilityZone: 'us-east-1a',
          totalInstanceCount: 2,
          instanceMatchCriteria: 'open',
        },
      ],
    },
    parameters: [amiParameter(al2023Path('x86_64', 'standard'), X86)],
  });
}

function withTerms(terms: readonly SelectorTerm[], status?: Record<string, unknown>): EC2NodeClass {
  return {
    ...nodeClass({
      role: 'KarpenterNodeRole-demo',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      capacityReservationSelectorTerms: terms,
    }),
    ...(status === undefined ? {} : { status }),
  };
}

describe('EC2NodeClassResolver: capacityReservationSelectorTerms', () => {
  it('resolves terms as Karpenter does: active only, ended ones dropped, a capacity block near its end expiring, sorted by id', async () => {
    const { resolver, ec2Fake } = world();

    const status = await resolver.resolve(
      withTerms([{ tags: { team: 'ml' } }, { id: 'cr-0000000000000000d' }, { id: 'cr-0000000000000000f' }]),
    );

    expect(status.capacityReservations).toStrictEqual([
      {
        id: 'cr-0000000000000000a',
        instanceType: 'p5.48xlarge',
        availabilityZone: 'us-east-1b',
        ownerID: '123456789012',
        instanceMatchCriteria: 'targeted',
        reservationType: 'capacity-block',
        state: 'expiring',
        interruptible: false,
        endTime: '2026-01-01T00:30:00Z',
        availableInstanceCount: 1,
      },
      expect.objectContaining({ id: 'cr-0000000000000000b', state: 'active', availableInstanceCount: 3 }),
      expect.objectContaining({ id: 'cr-0000000000000000d', instanceMatchCriteria: 'open' }),
    ]);
    expect(status.conditions.find((c) => c.type === 'CapacityReservationsReady')).toMatchObject({
      status: 'True',
    });
    expect(nodeClassReady(status)).toBe(true);
    // toEqual: the SDK paginator passes NextToken (and MaxResults) as undefined, which is not sent.
    expect(ec2Fake.callsTo('DescribeCapacityReservations')).toEqual([
      {
        Filters: [
          { Name: 'state', Values: ['active'] },
          { Name: 'tag:team', Values: ['ml'] },
        ],
        MaxResults: 1000,
      },
      { Filters: [{ Name: 'state', Values: ['active'] }], CapacityReservationIds: ['cr-0000000000000000d'] },
      { Filters: [{ Name: 'state', Values: ['active'] }], CapacityReservationIds: ['cr-0000000000000000f'] },
    ]);
  });

  it("writes them to status in Karpenter's shape, without the free count", async () => {
    const { resolver } = world();
    const manifest = toStatusManifest(await resolver.resolve(withTerms([{ id: 'cr-0000000000000000b' }])));
    expect(manifest.capacityReservations).toStrictEqual([
      {
        availabilityZone: 'us-east-1a',
        id: 'cr-0000000000000000b',
        instanceMatchCriteria: 'targeted',
        instanceType: 'm5.large',
        ownerID: '123456789012',
        reservationType: 'default',
        interruptible: false,
        state: 'active',
      },
    ]);
  });

  it('asks EC2 nothing without terms, and clears a list an earlier resolution wrote', async () => {
    const { resolver, ec2Fake } = world();

    const none = await resolver.resolve(withTerms([]));
    expect(none.capacityReservations).toBeUndefined();
    expect(toStatusManifest(none)).not.toHaveProperty('capacityReservations');
    expect(none.conditions.some((c) => c.type === 'CapacityReservationsReady')).toBe(false);
    expect(ec2Fake.callsTo('DescribeCapacityReservations')).toStrictEqual([]);

    const removed = await resolver.resolve(
      withTerms([], { capacityReservations: [{ id: 'cr-0000000000000000b' }] }),
    );
    expect(toStatusManifest(removed).capacityReservations).toStrictEqual([]);
  });

  it('selects from reservations already described exactly what it resolves through EC2 (podlift plan --capacity-reservations)', async () => {
    const { resolver, ec2, clock } = world();
    const described =
      (await ec2.send(new DescribeCapacityReservationsCommand({}))).CapacityReservations ?? [];
    expect(described.map((r) => r.State).sort()).toEqual(['active', 'active', 'active', 'expired']);
    const termSets: SelectorTerm[][] = [
      [{ tags: { team: 'ml' } }],
      [{ tags: { team: '*' } }],
      [{ tags: { team: 'web' } }],
      [{ tags: { team: 'ml' }, ownerID: '123456789012' }],
      [{ tags: { team: 'ml' }, ownerID: '999999999999' }],
      [{ instanceMatchCriteria: 'open' }],
      [{ instanceMatchCriteria: 'targeted', ownerID: '123456789012' }],
      [{ id: 'cr-0000000000000000c' }, { id: 'cr-0000000000000000d' }, { id: 'cr-0000000000000000f' }],
      [{ tags: { team: 'ml' } }, { id: 'cr-0000000000000000d' }],
    ];
    for (const terms of termSets) {
      const status = await resolver.resolve(withTerms(terms));
      expect(selectCapacityReservations(terms, described, clock.now()), JSON.stringify(terms)).toStrictEqual(
        status.capacityReservations,
      );
    }
  });
});
