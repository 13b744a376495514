import { describe, expect, it } from 'vitest';
import { offeringKey } from '../../shared/core/catalog/instance-type';
import type { KubeObject } from '../../sim/fakes/kube';
import {
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  scheduledEvent,
  seedPendingPods,
} from '../functions/provisioner/world';

/**
 * The provisioner end to end with an EC2NodeClass that selects a capacity reservation: reserved
 * offerings (aws/karpenter-provider-aws offering/reserved_capacity_resolver.go) chosen first
 * (instance.go getCapacityType), the launch template targeting the reservation
 * (launchtemplate/types.go Build), the NodeClaim labelled as cloudprovider.go
 * instanceToNodeClaim labels it, and the pods beyond the reservation's count on-demand.
 */

const RESERVATION = 'cr-0123456789abcdef0';

const claims = (pw: ProvisionerWorld): KubeObject[] =>
  pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items;

async function withReservation(
  seed: { reservationType?: 'default' | 'capacity-block'; endInMs?: number; gates?: string } = {},
): Promise<ProvisionerWorld> {
  const pw = await provisionerWorld(['m5.xlarge']);
  const store = pw.world.fakes.kube.store;
  const nodeClass = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default');
  store.update('ec2nodeclasses.karpenter.k8s.aws', {
    ...nodeClass,
    spec: { ...(nodeClass.spec as object), capacityReservationSelectorTerms: [{ id: RESERVATION }] },
  });
  const pool = store.get('nodepools.karpenter.sh', 'default');
  const spec = pool.spec as { template: { spec: Record<string, unknown> } };
  store.update('nodepools.karpenter.sh', {
    ...pool,
    spec: {
      ...spec,
      template: {
        ...spec.template,
        spec: {
          ...spec.template.spec,
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved', 'on-demand'] },
          ],
        },
      },
    },
  });
  pw.world.fakes.ec2.addCapacityReservation({
    id: RESERVATION,
    instanceType: 'm5.xlarge',
    availabilityZone: 'us-east-1a',
    totalInstanceCount: 3,
    ...(seed.reservationType === undefined ? {} : { reservationType: seed.reservationType }),
    ...(seed.endInMs === undefined ? {} : { endDate: pw.world.time.now() + seed.endInMs }),
  });
  return pw;
}

describe('provisioner: reserved capacity', () => {
  it('fills the reservation first, labels its NodeClaims, and launches the rest on-demand', async () => {
    const w = await withReservation();
    seedPendingPods(w.world, 4, '3');

    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));

    const labels = claims(w).map((c) => c.metadata.labels ?? {});
    const reserved = labels.filter((l) => l['karpenter.sh/capacity-type'] === 'reserved');
    expect(reserved).toHaveLength(3);
    for (const l of reserved) {
      expect(l).toMatchObject({
        'karpenter.k8s.aws/capacity-reservation-id': RESERVATION,
        'karpenter.k8s.aws/capacity-reservation-type': 'default',
        'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.kubernetes.io/zone': 'us-east-1a',
      });
    }
    const onDemand = labels.filter((l) => l['karpenter.sh/capacity-type'] === 'on-demand');
    expect(onDemand).toHaveLength(1);
    expect(onDemand[0]).not.toHaveProperty(['karpenter.k8s.aws/capacity-reservation-id']);

    const instances = w.world.fakes.ec2.listInstances();
    expect(instances.filter((i) => i.CapacityReservationId === RESERVATION)).toHaveLength(3);
    expect(instances.filter((i) => i.CapacityReservationId === undefined)).toHaveLength(1);
  });

  it('launches into a Capacity Block with the capacity-block market type', async () => {
    const w = await withReservation({ reservationType: 'capacity-block', endInMs: 6 * 3_600_000 });
    seedPendingPods(w.world, 1, '3');

    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));

    expect(claims(w)[0]?.metadata.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block',
    });
    expect(w.world.fakes.ec2.listInstances()[0]).toMatchObject({
      CapacityReservationId: RESERVATION,
      InstanceLifecycle: 'capacity-block',
    });
  });

  it('marks a reservation EC2 says is full (ReservationCapacityExceeded) and launches the pod on-demand', async () => {
    const w = await withReservation();
    seedPendingPods(w.world, 1, '3', 'first');
    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));
    // Someone else takes the last two slots while podlift's resolution (cached for 60 s) still counts 3 − 0.
    for (let i = 0; i < 2; i++)
      w.world.fakes.ec2.launchOutside({ instanceType: 'm5.xlarge', capacityReservationId: RESERVATION });
    seedPendingPods(w.world, 1, '3', 'second');

    await w.handler(scheduledEvent('s2'), lambdaContext('r2'));

    // Refused in the reservation, marked unavailable as Karpenter's MarkUnavailable marks it.
    expect([...w.runtime.unavailable.keys()]).toContain(offeringKey('m5.xlarge', 'us-east-1a', 'reserved'));
    expect(w.world.fakes.ec2.calls.filter((c) => c.operation === 'CreateFleet')).toHaveLength(2);
    // (The replan of that run put the pod on the first run's in-flight NodeClaim, whose pod the
    // fake API server never bound: the next run plans it again, without the marked reservation.)
    await w.handler(scheduledEvent('s3'), lambdaContext('r3'));
    // The NodeClaim refused in run 2 is deleted (its finalizer keeps it listed until termination).
    const live = claims(w).filter((c) => c.metadata.deletionTimestamp === undefined);
    expect(live.map((c) => c.metadata.labels?.['karpenter.sh/capacity-type']).sort()).toStrictEqual([
      'on-demand',
      'reserved',
    ]);
  });

  it('counts its own launches against the cached free count until the reservations are described again (MarkLaunched)', async () => {
    const w = await withReservation();
    seedPendingPods(w.world, 2, '3', 'first');
    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));
    // Within resolution's 60 s the cached count still says 3 free; two were launched into.
    seedPendingPods(w.world, 2, '3', 'second');
    await w.handler(scheduledEvent('s2'), lambdaContext('r2'));

    expect([...w.runtime.unavailable.keys()]).not.toContain(
      offeringKey('m5.xlarge', 'us-east-1a', 'reserved'),
    );
    const types = claims(w).map((c) => c.metadata.labels?.['karpenter.sh/capacity-type']);
    expect(types.sort()).toStrictEqual(['on-demand', 'reserved', 'reserved', 'reserved']);
  });
});
