import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClusterLease } from '../../shared/kube/cluster-lease';
import { microTime, parseKubeTime } from '../../shared/kube/lease-object';
import type { Harness } from './harness';
import { startHarness } from './harness';

let h: Harness;
let lease: ClusterLease;
beforeEach(async () => {
  h = await startHarness();
  lease = new ClusterLease(h.api, h.clock);
});
afterEach(() => h.server.close());

const stored = () => h.server.store.get('leases.coordination.k8s.io', 'podlift', 'podlift');

describe('ClusterLease.acquire', () => {
  it('creates the Lease in the podlift namespace with MicroTime timestamps', async () => {
    h.clock.advance(123);
    const outcome = await lease.acquire('provisioner-1', 30);
    expect(outcome).toEqual({
      acquired: true,
      holder: 'provisioner-1',
      expiresAt: Date.parse('2026-11-21T10:00:30.123Z'),
      transitions: 0,
    });
    expect(stored().spec).toEqual({
      holderIdentity: 'provisioner-1',
      leaseDurationSeconds: 30,
      acquireTime: '2026-11-21T10:00:00.123000Z',
      renewTime: '2026-11-21T10:00:00.123000Z',
      leaseTransitions: 0,
    });
    expect(h.server.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/apis/coordination.k8s.io/v1/namespaces/podlift/leases',
    });
  });

  it('renews for the holder, keeping acquireTime', async () => {
    await lease.acquire('provisioner-1', 30);
    h.clock.advance(10_000);
    const outcome = await lease.acquire('provisioner-1', 30);
    expect(outcome).toMatchObject({ acquired: true, expiresAt: Date.parse('2026-11-21T10:00:40Z') });
    expect(stored().spec).toMatchObject({
      acquireTime: '2026-11-21T10:00:00.000000Z',
      renewTime: '2026-11-21T10:00:10.000000Z',
      leaseTransitions: 0,
    });
  });

  it('refuses a second holder while the first hold is valid', async () => {
    await lease.acquire('provisioner-1', 30);
    h.clock.advance(29_999);
    const outcome = await new ClusterLease(h.api, h.clock).acquire('disruption-1', 30);
    expect(outcome).toEqual({
      acquired: false,
      holder: 'provisioner-1',
      expiresAt: Date.parse('2026-11-21T10:00:30Z'),
      transitions: 0,
    });
    expect(stored().spec).toMatchObject({ holderIdentity: 'provisioner-1' });
  });

  it('lets another holder take over once renewTime + leaseDurationSeconds has passed on the clock', async () => {
    await lease.acquire('provisioner-1', 30);
    h.clock.advance(30_000);
    const outcome = await lease.acquire('disruption-1', 60);
    expect(outcome).toMatchObject({ acquired: true, holder: 'disruption-1', transitions: 1 });
    expect(stored().spec).toEqual({
      holderIdentity: 'disruption-1',
      leaseDurationSeconds: 60,
      acquireTime: '2026-11-21T10:00:30.000000Z',
      renewTime: '2026-11-21T10:00:30.000000Z',
      leaseTransitions: 1,
    });
    expect((await lease.acquire('provisioner-1', 30)).acquired).toBe(false);
  });

  it('of two contenders for a new Lease, exactly one wins', async () => {
    const [a, b] = await Promise.all([
      new ClusterLease(h.api, h.clock).acquire('a', 30),
      new ClusterLease(h.api, h.clock).acquire('b', 30),
    ]);
    expect([a.acquired, b.acquired].sort()).toEqual([false, true]);
    expect(a.holder).toBe(b.holder);
    expect(stored().spec).toMatchObject({ holderIdentity: a.holder });
  });

  it('loses cleanly when another contender takes an expired Lease between its read and write (409)', async () => {
    await lease.acquire('old', 30);
    h.clock.advance(60_000);
    const get = h.server.store.get.bind(h.server.store);
    let raced = false;
    vi.spyOn(h.server.store, 'get').mockImplementation((resource, name, namespace) => {
      const read = get(resource, name, namespace);
      if (!raced) {
        raced = true;
        const spec = {
          ...(read.spec as object),
          holderIdentity: 'winner',
          renewTime: microTime(h.clock.now()),
        };
        h.server.store.update(resource, { ...read, spec });
      }
      return read;
    });
    const outcome = await lease.acquire('loser', 30);
    expect(outcome).toMatchObject({ acquired: false, holder: 'winner' });
    expect(h.server.requests.filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([409]);
  });

  it('keeps the hold when only the annotation changed between read and renew', async () => {
    await lease.acquire('provisioner-1', 30);
    await lease.saveUnavailableOfferings([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'spot',
        until: h.clock.now() + 60_000,
        reason: 'ICE',
      },
    ]);
    h.server.failNext('update', '/apis/coordination.k8s.io/v1/namespaces/podlift/leases/podlift', 409);
    const outcome = await lease.acquire('provisioner-1', 30);
    expect(outcome.acquired).toBe(true);
    expect(stored().metadata.annotations?.['podlift.dev/unavailable-offerings']).toContain('m5.large');
  });
});

describe('ClusterLease.release', () => {
  it('frees the Lease for the next contender without waiting for expiry', async () => {
    await lease.acquire('provisioner-1', 300);
    expect(await lease.release('provisioner-1')).toBe(true);
    expect(stored().spec).toEqual({
      leaseDurationSeconds: 1,
      acquireTime: '2026-11-21T10:00:00.000000Z',
      renewTime: '2026-11-21T10:00:00.000000Z',
      leaseTransitions: 0,
    });
    h.clock.advance(1);
    expect(await lease.acquire('disruption-1', 30)).toMatchObject({ acquired: true, transitions: 1 });
  });

  it('does nothing for a caller that does not hold it, or when there is no Lease', async () => {
    expect(await lease.release('nobody')).toBe(false);
    await lease.acquire('provisioner-1', 30);
    expect(await lease.release('someone-else')).toBe(false);
    expect(stored().spec).toMatchObject({ holderIdentity: 'provisioner-1' });
  });

  it('uses the configured namespace and name', async () => {
    const custom = new ClusterLease(h.api, h.clock, { namespace: 'kube-system', name: 'cluster-a' });
    await custom.acquire('x', 10);
    expect(h.server.store.find('leases.coordination.k8s.io', 'cluster-a', 'kube-system')).toBeDefined();
  });
});

describe('MicroTime', () => {
  it('formats with exactly six fractional digits and parses any precision', () => {
    expect(microTime(Date.parse('2026-11-21T10:00:00.5Z'))).toBe('2026-11-21T10:00:00.500000Z');
    expect(parseKubeTime('2026-11-21T10:00:00.123456Z')).toBe(Date.parse('2026-11-21T10:00:00.123Z'));
    expect(parseKubeTime('2026-11-21T10:00:00Z')).toBe(Date.parse('2026-11-21T10:00:00Z'));
    expect(parseKubeTime('2026-11-21T12:00:00.1+02:00')).toBe(Date.parse('2026-11-21T10:00:00.100Z'));
    expect(parseKubeTime('yesterday')).toBeUndefined();
  });
});
