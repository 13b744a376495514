import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../sim/fakes/kube';
import { nodePoolManifest, podManifest } from '../../../sim/world/builders';
import type { ClusterWorld } from '../../../sim/world/cluster-world';
import {
  claims,
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  running,
  scheduledEvent,
  seedZonalSpread,
  settle,
} from './world';

/**
 * The soak's path to a NodePool over its limits (seed 1, PodDeletionCostManagement): run A
 * creates a NodeClaim whose CreateFleet is throttled, so it stays unlaunched; run B launches it
 * (launchRecordedClaims) but the API server refuses the record, so the NodeClaim still has no
 * providerID. The NodeClaim must still count against its NodePool's limits and hold its pod
 * (state/cluster-snapshot.ts `schedulingCapacity`); run B launches nothing more. Karpenter gets
 * there by planning nothing while a NodeClaim has no providerID (kubernetes-sigs/karpenter
 * pkg/controllers/state/cluster.go `Synced`).
 */

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const providerID = (claim: KubeObject) =>
  ((claim as Record<string, unknown>).status as { providerID?: string } | undefined)?.providerID;

/** A pending `batch` pod (3 vCPU: only a 4-vCPU type of the world holds it), in `zone` if given. */
function seedBatchPod(world: ClusterWorld, name: string, cpu = '3', zone?: string): KubeObject {
  return world.fakes.kube.store.seed(
    'pods',
    podManifest({
      name,
      uid: `uid-${name}`,
      requests: { cpu, memory: '1Gi' },
      ...(zone ? { nodeSelector: { 'topology.kubernetes.io/zone': zone } } : {}),
      unschedulable: true,
      ownerKind: 'ReplicaSet',
    }),
  );
}

/** The provisioner world with NodePool `default` limited to `cpu` vCPU, on-demand. */
async function limitedWorld(cpu: string): Promise<ProvisionerWorld> {
  const pw = await provisionerWorld(['m5.large', 'm5.xlarge', 'c5.xlarge']);
  const { store } = pw.world.fakes.kube;
  const manifest = nodePoolManifest({
    requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
    limits: { cpu },
  });
  const { resourceVersion } = store.get('nodepools.karpenter.sh', 'default').metadata;
  store.update('nodepools.karpenter.sh', {
    ...manifest,
    metadata: { ...manifest.metadata, resourceVersion },
  });
  return pw;
}

/** Run A: CreateFleet throttled throughout, so its NodeClaim stays, unlaunched. */
async function runThrottled(pw: ProvisionerWorld) {
  pw.world.fakes.ec2.throttle('CreateFleet', 50);
  const a = await settle(pw.world, pw.handler(scheduledEvent('s1'), lambdaContext('r1')));
  pw.world.fakes.ec2.clearFailures();
  expect(a).toMatchObject({ nodeClaimsLaunched: 0 });
  expect(claims(pw)).toHaveLength(1);
  expect(running(pw)).toHaveLength(0);
  return claims(pw)[0].metadata.name;
}

/** Run B: the NodeClaim launches, but recording the launch on it gets a 500. */
async function runRecordRefused(pw: ProvisionerWorld) {
  pw.world.fakes.kube.failNext('patch', /\/nodeclaims\//, 500);
  return settle(pw.world, pw.handler(scheduledEvent('s2'), lambdaContext('r2')));
}

describe('provisioner: a NodeClaim whose launch is not recorded', () => {
  it('counts against its NodePool limits: the pod the limits held back stays pending', async () => {
    // limits.cpu 6: the first claim's 4-vCPU options leave 2, too few for the second pod.
    w = await limitedWorld('6');
    seedBatchPod(w.world, 'batch-0');
    seedBatchPod(w.world, 'batch-1');
    const first = await runThrottled(w);

    const b = await runRecordRefused(w);
    expect(b).toMatchObject({ nodeClaimsLaunched: 0, podsUnschedulable: 1 });
    expect(running(w)).toHaveLength(1);
    expect(claims(w).map((c) => c.metadata.name)).toEqual([first]);
    expect(providerID(claims(w)[0])).toBeUndefined();

    // Run C records the instance run B launched (found by its NodeClaim tag); still one.
    const c = await settle(w.world, w.handler(scheduledEvent('s3'), lambdaContext('r3')));
    expect(c).toMatchObject({ repaired: 1, nodeClaimsLaunched: 0, podsUnschedulable: 1 });
    expect(running(w)).toHaveLength(1);
    expect(claims(w)).toHaveLength(1);
    expect(providerID(claims(w)[0])).toBe(
      `aws:///${running(w)[0].Placement?.AvailabilityZone}/${running(w)[0].InstanceId}`,
    );
  });

  it('holds the pod it was made for: no second NodeClaim launches for it', async () => {
    w = await limitedWorld('100');
    seedBatchPod(w.world, 'batch-0');
    const first = await runThrottled(w);

    const b = await runRecordRefused(w);
    expect(b).toMatchObject({ nodeClaimsLaunched: 0, podsUnschedulable: 0 });
    expect(claims(w).map((c) => c.metadata.name)).toEqual([first]);
    expect(running(w)).toHaveLength(1);
    const nominated = w.world.fakes.kube.store
      .list('events')
      .items.filter((e) => (e as { reason?: string }).reason === 'Nominated');
    expect(nominated.map((e) => (e as { message?: string }).message)).toEqual([
      `Pod should schedule on: nodeclaim/${first}`,
    ]);
  });

  it('is counted when the same run plans again the pods EC2 had no capacity for, so a zonal spread keeps maxSkew', async () => {
    // As the NodeClaims the run launched are (capacity-and-lifecycle.test.ts): six pods spread
    // over three zones with maxSkew 2, none of us-east-1c's offerings has capacity, and one of
    // the four other NodeClaims launches without its record. Planned again without it, a
    // us-east-1c pod would go to that NodeClaim's zone: three pods there against none in
    // us-east-1c.
    w = await provisionerWorld(['m5.large']);
    seedZonalSpread(w, 2);
    w.world.fakes.kube.failNext('patch', /\/nodeclaims\//, 500);
    await settle(w.world, w.handler(scheduledEvent('s1'), lambdaContext('r1')));
    const live = claims(w).filter((c) => !c.metadata.deletionTimestamp);
    expect(live.filter((c) => providerID(c) === undefined)).toHaveLength(1);
    const zones = running(w)
      .map((i) => i.Placement?.AvailabilityZone)
      .sort();
    expect(zones).toStrictEqual(['us-east-1a', 'us-east-1a', 'us-east-1b', 'us-east-1b']);
  });
});
