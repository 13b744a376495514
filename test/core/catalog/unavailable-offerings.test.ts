import { describe, expect, it } from 'vitest';
import { resolveInstanceTypes } from '../../../shared/core/catalog/instance-type-resolution';
import {
  ANY,
  isOfferingUnavailable,
  UNAVAILABLE_OFFERING_TTL_MS,
  UnavailableOfferings,
} from '../../../shared/core/catalog/unavailable-offerings';
import { VirtualTime } from '../../../sim/virtual-time';
import { launchCatalog } from '../../../sim/world/aws/launch-world';

describe('UnavailableOfferings', () => {
  it('forgets an offering exactly when its 3-minute TTL passes, in keys() and in list()', () => {
    const clock = new VirtualTime();
    const offerings = new UnavailableOfferings(clock);
    expect(UNAVAILABLE_OFFERING_TTL_MS).toBe(180_000);
    offerings.mark('m5.large', 'us-east-1a', 'spot', 'InsufficientInstanceCapacity');
    clock.advance(UNAVAILABLE_OFFERING_TTL_MS - 1);
    expect([...offerings.keys()]).toStrictEqual(['spot:m5.large:us-east-1a']);
    expect(offerings.list()).toHaveLength(1);
    clock.advance(1);
    expect([...offerings.keys()]).toStrictEqual([]);
    expect(offerings.list()).toStrictEqual([]);
  });

  it('extends a mark made again, from the later time', () => {
    const clock = new VirtualTime();
    const offerings = new UnavailableOfferings(clock);
    offerings.mark('m5.large', 'us-east-1a', 'spot', 'first');
    clock.advance(100_000);
    offerings.mark('m5.large', 'us-east-1a', 'spot', 'again');
    clock.advance(100_000);
    expect(offerings.list()).toStrictEqual([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'spot',
        until: clock.now() + 80_000,
        reason: 'again',
      },
    ]);
  });

  it('restores stored entries: expired ones dropped, and the later expiry wins either way', () => {
    const clock = new VirtualTime();
    const offerings = new UnavailableOfferings(clock);
    const now = clock.now();
    const entry = (until: number, reason: string) => ({
      instanceType: 'c5.large',
      zone: 'us-east-1b',
      capacityType: 'on-demand' as const,
      until,
      reason,
    });
    offerings.restore([entry(now + 60_000, 'short'), entry(now - 1, 'expired-other')]);
    offerings.restore([entry(now + 120_000, 'long')]);
    offerings.restore([entry(now + 30_000, 'shorter again')]);
    expect(offerings.list()).toStrictEqual([entry(now + 120_000, 'long')]);
    const fresh = new UnavailableOfferings(clock);
    fresh.restore([entry(now, 'expires now')]);
    expect(fresh.list()).toStrictEqual([]);
  });

  it('marks a whole capacity type for the TTL, as Karpenter does for spot without its service-linked role', () => {
    const clock = new VirtualTime();
    const set = new UnavailableOfferings(clock);

    set.markCapacityType('spot', 'AuthFailure.ServiceLinkedRoleCreationNotPermitted');

    expect(isOfferingUnavailable(set.keys(), 'm5.large', 'us-east-1a', 'spot')).toBe(true);
    expect(isOfferingUnavailable(set.keys(), 'c5.xlarge', 'us-east-1c', 'spot')).toBe(true);
    expect(isOfferingUnavailable(set.keys(), 'm5.large', 'us-east-1a', 'on-demand')).toBe(false);
    clock.advance(UNAVAILABLE_OFFERING_TTL_MS);
    expect(isOfferingUnavailable(set.keys(), 'm5.large', 'us-east-1a', 'spot')).toBe(false);
  });

  it('stores a capacity type mark as an ordinary entry, so it is persisted and restored like the others', () => {
    const clock = new VirtualTime();
    const set = new UnavailableOfferings(clock);
    set.markCapacityType('spot', 'AuthFailure.ServiceLinkedRoleCreationNotPermitted');

    const restored = new UnavailableOfferings(clock);
    restored.restore(JSON.parse(JSON.stringify(set.list())));

    expect(restored.list()).toStrictEqual([
      {
        instanceType: ANY,
        zone: ANY,
        capacityType: 'spot',
        until: clock.now() + UNAVAILABLE_OFFERING_TTL_MS,
        reason: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted',
      },
    ]);
  });

  it('marks subnets out of addresses for the TTL, kept apart from the offerings', () => {
    const clock = new VirtualTime();
    const set = new UnavailableOfferings(clock);

    set.markSubnet('subnet-a', 'InsufficientFreeAddressesInSubnet');

    expect([...set.subnets()]).toStrictEqual(['subnet-a']);
    expect(set.list()).toStrictEqual([]);
    clock.advance(UNAVAILABLE_OFFERING_TTL_MS);
    expect([...set.subnets()]).toStrictEqual([]);
  });

  it('makes the scheduler see every offering of a marked capacity type as unavailable', () => {
    const set = new UnavailableOfferings(new VirtualTime());
    set.markCapacityType('spot', 'AuthFailure.ServiceLinkedRoleCreationNotPermitted');

    const types = resolveInstanceTypes(launchCatalog(), undefined, set.keys());

    const offerings = types.flatMap((it) => it.offerings);
    expect(offerings.filter((o) => o.capacityType === 'spot').every((o) => !o.available)).toBe(true);
    expect(offerings.filter((o) => o.capacityType === 'on-demand').every((o) => o.available)).toBe(true);
  });
});
