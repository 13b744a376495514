import { afterEach, describe, expect, it, vi } from 'vitest';
import { LEASE_TIMING } from '../../../functions/lease';
import { makeProvisionerHandler } from '../../../functions/provisioner/handler';
import { runtimeOf } from '../../../functions/runtime';
import {
  ANNOTATIONS,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
} from '../../../shared/core/model/labels';
import type { KubeObject } from '../../../sim/fakes/kube';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { clusterWorld } from '../../../sim/world/cluster-world';
import {
  claims,
  lambdaContext,
  type ProvisionerWorld,
  podsPendingEvent,
  provisionerWorld,
  running,
  scheduledEvent,
  seedPendingPods,
  settle,
} from './world';

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const isLaunched = (claim: KubeObject) =>
  (
    ((claim as Record<string, unknown>).status as { conditions?: { type: string; status: string }[] })
      ?.conditions ?? []
  ).some((c) => c.type === 'Launched' && c.status === 'True');

describe('provisioner: pending pods become NodeClaims, then instances', () => {
  it('records a NodeClaim before launching it, launches it once, and records the launch on it', async () => {
    w = await provisionerWorld();
    const pods = seedPendingPods(w.world, 3);
    const summary = await w.handler(podsPendingEvent(pods), lambdaContext('r1'));

    expect(summary).toMatchObject({
      ran: true,
      podsConsidered: 3,
      nodeClaimsLaunched: 1,
      podsUnschedulable: 0,
    });
    const [claim] = claims(w);
    expect(claims(w)).toHaveLength(1);
    expect(isLaunched(claim)).toBe(true);
    const instances = running(w);
    expect(instances).toHaveLength(1);
    const [instance] = instances;
    const labels = claim.metadata.labels ?? {};
    expect(labels[LABEL_NODEPOOL]).toBe('default');
    expect(labels[LABEL_INSTANCE_TYPE]).toBe(instance.InstanceType);
    expect(labels[LABEL_CAPACITY_TYPE]).toBe('on-demand');
    const annotations = claim.metadata.annotations ?? {};
    expect(annotations[ANNOTATIONS.nodePoolHash]).toMatch(/^\d+$/);
    expect(annotations[ANNOTATIONS.nodeClassHash]).toMatch(/^\d+$/);
    expect(Number(annotations[ANNOTATIONS.hourlyPrice])).toBeGreaterThan(0);
    expect(((claim as Record<string, unknown>).status as { providerID?: string }).providerID).toBe(
      `aws:///${instance.Placement?.AvailabilityZone}/${instance.InstanceId}`,
    );
    expect(instance.Tags?.find((t) => t.Key === 'karpenter.sh/nodeclaim')?.Value).toBe(claim.metadata.name);
    const nominated = w.world.fakes.kube.store
      .list('events')
      .items.filter((e) => (e as { reason?: string }).reason === 'Nominated');
    expect(nominated).toHaveLength(3);
    expect((nominated[0] as { message?: string }).message).toBe(
      `Pod should schedule on: nodeclaim/${claim.metadata.name}`,
    );
    expect(w.seen.total('NodeClaimsLaunched', { nodePool: 'default' })).toBe(1);
  });

  it('counts a launched NodeClaim as capacity on the way: the next run launches nothing more', async () => {
    w = await provisionerWorld();
    seedPendingPods(w.world, 3);
    await w.handler(scheduledEvent('s1'), lambdaContext('r1'));
    const again = await w.handler(scheduledEvent('s2'), lambdaContext('r2'));
    expect(again).toMatchObject({ ran: true, podsConsidered: 3, nodeClaimsLaunched: 0 });
    expect(claims(w)).toHaveLength(1);
    expect(running(w)).toHaveLength(1);
  });

  it('repairs a run that crashed after the launch and before recording it: the next run records the same instance', async () => {
    w = await provisionerWorld();
    seedPendingPods(w.world, 2);
    w.world.fakes.kube.failNext('patch', /\/nodeclaims\//, 500);
    const first = await w.handler(scheduledEvent('s1'), lambdaContext('r1'));
    expect(first).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(claims(w).filter(isLaunched)).toHaveLength(0);
    expect(running(w)).toHaveLength(1);

    const second = await w.handler(scheduledEvent('s2'), lambdaContext('r2'));
    expect(second).toMatchObject({ repaired: 1, nodeClaimsLaunched: 0 });
    expect(claims(w)).toHaveLength(1);
    expect(claims(w).filter(isLaunched)).toHaveLength(1);
    expect(running(w)).toHaveLength(1);
  });

  it('launches a NodeClaim recorded before a throttle storm once EC2 answers again', async () => {
    w = await provisionerWorld();
    seedPendingPods(w.world, 2);
    w.world.fakes.ec2.throttle('CreateFleet', 50);
    const first = await settle(w.world, w.handler(scheduledEvent('s1'), lambdaContext('r1')));
    expect(first).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(claims(w)).toHaveLength(1);
    expect(running(w)).toHaveLength(0);

    w.world.fakes.ec2.clearFailures();
    const second = await settle(w.world, w.handler(scheduledEvent('s2'), lambdaContext('r2')));
    expect(second).toMatchObject({ repaired: 1 });
    expect(claims(w).filter(isLaunched)).toHaveLength(1);
    expect(running(w)).toHaveLength(1);
  });

  it("records only the options within the NodePool's launch price band, and launches one of them again after a throttle", async () => {
    // price-capacity-optimized takes the m5.large pool ($0.0326/h spot), deeper than the cheapest
    // option, the t3.medium ($0.0183/h) the pods were planned on (examples/scenarios/launch-price-band.yaml).
    const typesOf = (claim: KubeObject) =>
      (
        (claim as { spec?: { requirements?: { key: string; values?: string[] }[] } }).spec?.requirements ?? []
      ).find((r) => r.key === LABEL_INSTANCE_TYPE)?.values;
    const launched = async (band?: string) => {
      w = await provisionerWorld(['t3.medium', 'm5.large', 'c5.large'], 'spot');
      const [pool] = w.world.fakes.kube.store.list('nodepools.karpenter.sh').items;
      if (band !== undefined)
        w.world.fakes.kube.store.update('nodepools.karpenter.sh', {
          ...pool,
          metadata: { ...pool.metadata, annotations: { [ANNOTATIONS.launchPriceBand]: band } },
        });
      seedPendingPods(w.world, 2);
      w.world.fakes.ec2.throttle('CreateFleet', 50);
      await settle(w.world, w.handler(scheduledEvent('s1'), lambdaContext('r1')));
      expect(running(w)).toHaveLength(0);
      const recorded = typesOf(claims(w)[0]);
      w.world.fakes.ec2.clearFailures();
      await settle(w.world, w.handler(scheduledEvent('s2'), lambdaContext('r2')));
      const types = running(w).map((i) => i.InstanceType);
      await w.world.close();
      w = undefined;
      return { recorded, types };
    };
    expect(await launched()).toEqual({
      recorded: ['c5.large', 'm5.large', 't3.medium'],
      types: ['m5.large'],
    });
    expect(await launched('25%')).toEqual({ recorded: ['t3.medium'], types: ['t3.medium'] });
    // A band wide enough for the m5.large: EC2 chooses as without one.
    expect(await launched('80%')).toEqual({ recorded: ['m5.large', 't3.medium'], types: ['m5.large'] });
  });

  it('deletes a NodeClaim EC2 refuses for good (not capacity, not transient), with a Warning Event', async () => {
    w = await provisionerWorld();
    seedPendingPods(w.world, 2);
    w.world.fakes.ec2.capacity.injectLaunchError(
      {},
      'InvalidParameterValue',
      10,
      'Invalid value for BlockDeviceMapping',
    );
    const summary = await settle(w.world, w.handler(scheduledEvent('s1'), lambdaContext('r1')));
    expect(summary).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(running(w)).toHaveLength(0);
    expect(claims(w).length).toBeGreaterThan(0);
    expect(claims(w).filter((c) => !c.metadata.deletionTimestamp)).toHaveLength(0);
    const failed = w.world.fakes.kube.store
      .list('events')
      .items.filter((e) => (e as { reason?: string }).reason === 'LaunchFailed') as {
      type?: string;
      involvedObject?: { kind?: string };
      message?: string;
    }[];
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'NodeClaim' } });
    expect(failed[0]?.message).toMatch(/InvalidParameterValue/);
  });

  it('yields to an invocation holding the cluster Lease', async () => {
    w = await provisionerWorld();
    seedPendingPods(w.world, 2);
    await w.world.ports.lease.acquire('disruption/other', 120);
    const summary = await w.handler(scheduledEvent(), lambdaContext('r1'));
    expect(summary).toMatchObject({ ran: false });
    expect(claims(w)).toHaveLength(0);
    expect(w.seen.total('LeaseHeldElsewhere')).toBe(1);
  });

  it('stops before launching when it could not renew the Lease in time, and the next run launches the NodeClaim', async () => {
    w = await provisionerWorld();
    seedPendingPods(w.world, 2);
    const pw = w;
    const store = pw.world.fakes.kube.store;
    const create = store.create.bind(store);
    // The API server stalls past the renew deadline while it creates the NodeClaim.
    vi.spyOn(store, 'create').mockImplementation((resource, input, options) => {
      const created = create(resource, input, options);
      const plural = typeof resource === 'string' ? resource : resource.plural;
      if (plural.startsWith('nodeclaims')) pw.world.time.advance(LEASE_TIMING.renewDeadlineMs);
      return created;
    });
    const first = await w.handler(scheduledEvent('s1'), lambdaContext('r1'));
    vi.restoreAllMocks();

    expect(first).toMatchObject({ ran: false });
    expect(claims(w)).toHaveLength(1);
    expect(claims(w).filter(isLaunched)).toHaveLength(0);
    expect(w.world.fakes.ec2.calls.filter((c) => c.operation === 'CreateFleet')).toHaveLength(0);
    expect(w.seen.total('LeaseLost')).toBe(1);

    const second = await settle(w.world, w.handler(scheduledEvent('s2'), lambdaContext('r2')));
    expect(second).toMatchObject({ ran: true, repaired: 1, nodeClaimsLaunched: 0 });
    expect(claims(w).filter(isLaunched)).toHaveLength(1);
    expect(running(w)).toHaveLength(1);
  });

  it('acknowledges an event it does not know, and a malformed watcher event, without crashing', async () => {
    w = await provisionerWorld();
    await expect(w.handler({ hello: 'world' }, lambdaContext('r1'))).resolves.toBeUndefined();
    const bad = { ...podsPendingEvent([]), detail: { schemaVersion: 99 } };
    await expect(w.handler(bad, lambdaContext('r2'))).resolves.toBeUndefined();
    expect(w.seen.lines.filter((l) => l.message.startsWith('ignoring an event'))).toHaveLength(2);
  });

  it('fails an invocation against a cluster older than 1.25 by naming its version, before reading anything', async () => {
    const world = await clusterWorld({ kubernetesVersion: 'v1.24.17-eks-1234567', loop: 'provisioner' });
    try {
      const seen = new RecordingObservability();
      const handler = makeProvisionerHandler(() =>
        runtimeOf('provisioner', world.ports, world.time, seen.log, seen.metricsPort),
      );
      await expect(handler(scheduledEvent(), lambdaContext('r1'))).rejects.toThrow(
        /v1\.24\.17-eks-1234567; podlift needs Kubernetes 1\.25/,
      );
      expect(world.fakes.kube.requests.filter((r) => r.path.endsWith('/pods'))).toHaveLength(0);
    } finally {
      await world.close();
    }
  });
});
