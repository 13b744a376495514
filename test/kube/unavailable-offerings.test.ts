import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UnavailableOffering } from '../../shared/core/catalog/unavailable-offerings';
import { ClusterLease } from '../../shared/kube/cluster-lease';
import {
  parseUnavailableOfferings,
  UNAVAILABLE_OFFERINGS_ANNOTATION,
} from '../../shared/kube/lease-unavailable-offerings';
import type { Harness } from './harness';
import { startHarness } from './harness';

let h: Harness;
let lease: ClusterLease;
beforeEach(async () => {
  h = await startHarness();
  lease = new ClusterLease(h.api, h.clock);
});
afterEach(() => h.server.close());

const offering = (
  instanceType: string,
  zone: string,
  inMs: number,
  reason = 'InsufficientInstanceCapacity',
) =>
  ({
    instanceType,
    zone,
    capacityType: 'spot',
    until: h.clock.now() + inMs,
    reason,
  }) satisfies UnavailableOffering;
const annotation = () =>
  h.server.store.get('leases.coordination.k8s.io', 'podlift', 'podlift').metadata.annotations?.[
    UNAVAILABLE_OFFERINGS_ANNOTATION
  ];

describe('ClusterLease unavailable offerings', () => {
  it('round-trips through a JSON annotation, creating the Lease without a holder', async () => {
    expect(await lease.loadUnavailableOfferings()).toEqual([]);
    const entries = [offering('m5.large', 'us-east-1a', 180_000), offering('c5.large', 'us-east-1b', 60_000)];
    await lease.saveUnavailableOfferings(entries);
    expect(JSON.parse(annotation() ?? '')).toHaveLength(2);
    expect(await lease.loadUnavailableOfferings()).toEqual([entries[1], entries[0]]);
    expect(h.server.store.get('leases.coordination.k8s.io', 'podlift', 'podlift').spec).toEqual({});
    expect((await lease.acquire('provisioner-1', 30)).acquired).toBe(true);
    expect(await lease.loadUnavailableOfferings()).toHaveLength(2);
  });

  it('drops expired entries on load and on save, the later expiry winning per offering', async () => {
    await lease.saveUnavailableOfferings([
      offering('m5.large', 'us-east-1a', 60_000),
      offering('c5.large', 'us-east-1a', 10_000),
    ]);
    h.clock.advance(30_000);
    expect((await lease.loadUnavailableOfferings()).map((e) => e.instanceType)).toEqual(['m5.large']);
    const later = offering('m5.large', 'us-east-1a', 180_000, 'SpotInterruption');
    const stored = await lease.saveUnavailableOfferings([later]);
    expect(stored).toEqual([later]);
    expect(JSON.parse(annotation() ?? '')).toEqual([later]);
  });

  it('merges with what is stored instead of overwriting it, and keeps the holder', async () => {
    await lease.acquire('provisioner-1', 30);
    await lease.saveUnavailableOfferings([offering('m5.large', 'us-east-1a', 60_000)]);
    await new ClusterLease(h.api, h.clock).saveUnavailableOfferings([
      offering('r5.large', 'us-east-1c', 60_000),
    ]);
    expect((await lease.loadUnavailableOfferings()).map((e) => e.instanceType).sort()).toEqual([
      'm5.large',
      'r5.large',
    ]);
    expect(h.server.store.get('leases.coordination.k8s.io', 'podlift', 'podlift').spec).toMatchObject({
      holderIdentity: 'provisioner-1',
    });
  });

  it('on 409 re-reads and merges the entries another function saved between our read and write', async () => {
    await lease.saveUnavailableOfferings([offering('m5.large', 'us-east-1a', 60_000)]);
    const theirs = offering('c5.xlarge', 'us-east-1b', 90_000);
    const get = h.server.store.get.bind(h.server.store);
    let raced = false;
    vi.spyOn(h.server.store, 'get').mockImplementation((resource, name, namespace) => {
      const read = get(resource, name, namespace);
      if (!raced) {
        raced = true;
        const current = JSON.parse(read.metadata.annotations?.[UNAVAILABLE_OFFERINGS_ANNOTATION] ?? '[]');
        h.server.store.update(resource, {
          ...read,
          metadata: {
            ...read.metadata,
            annotations: { [UNAVAILABLE_OFFERINGS_ANNOTATION]: JSON.stringify([...current, theirs]) },
          },
        });
      }
      return read;
    });
    const ours = offering('m6i.large', 'us-east-1a', 120_000);

    await lease.saveUnavailableOfferings([ours]);

    expect(
      (JSON.parse(annotation() ?? '') as UnavailableOffering[]).map((e) => e.instanceType).sort(),
    ).toEqual(['c5.xlarge', 'm5.large', 'm6i.large']);
    expect(h.server.requests.filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([409, 200]);
  });

  it('does not write when nothing would change', async () => {
    const entry = offering('m5.large', 'us-east-1a', 60_000);
    await lease.saveUnavailableOfferings([entry]);
    h.server.clearRequests();
    await lease.saveUnavailableOfferings([entry]);
    expect(h.server.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('ignores a damaged annotation and damaged entries rather than failing', () => {
    expect(parseUnavailableOfferings('{not json')).toEqual([]);
    expect(parseUnavailableOfferings('{"a":1}')).toEqual([]);
    expect(
      parseUnavailableOfferings(
        JSON.stringify([
          { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', until: 5, reason: 'x' },
          { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'lunar', until: 5, reason: 'x' },
        ]),
      ),
    ).toEqual([
      { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', until: 5, reason: 'x' },
    ]);
  });
});
