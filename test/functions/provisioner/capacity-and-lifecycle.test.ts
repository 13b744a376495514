import { afterEach, describe, expect, it } from 'vitest';
import { LABEL_INITIALIZED, LABEL_INSTANCE_TYPE, LABEL_REGISTERED } from '../../../shared/core/model/labels';
import {
  ec2NodeClassManifest,
  nodeManifest,
  nodePoolManifest,
  podManifest,
} from '../../../sim/world/builders';
import {
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  running,
  scheduledEvent,
  seedPendingPods,
  seedZonalSpread,
} from './world';

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
/** NodeClaims not being deleted (one refused for capacity keeps its finalizer until termination). */
const claims = (pw: ProvisionerWorld) =>
  (pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[]).filter(
    (c) => !c.metadata.deletionTimestamp,
  );
const condition = (claim: Json, type: string) =>
  (claim.status?.conditions ?? []).find((c: Json) => c.type === type)?.status as string | undefined;
const run = (pw: ProvisionerWorld, id: string) => pw.handler(scheduledEvent(id), lambdaContext(id));

describe('provisioner: insufficient capacity', () => {
  it('launches the next cheapest type when EC2 has none of the cheapest anywhere, and keeps the refusal on the Lease', async () => {
    w = await provisionerWorld(['m5.large', 'm5.xlarge']);
    w.world.fakes.ec2.capacity.setCapacity({ instanceType: 'm5.large' }, 0);
    seedPendingPods(w.world, 2, '250m');
    const summary = await run(w, 'r1');
    expect(summary).toMatchObject({ nodeClaimsLaunched: 1 });
    expect(running(w).map((i) => i.InstanceType)).toEqual(['m5.xlarge']);
    expect(
      claims(w).map((c) => [c.metadata.labels[LABEL_INSTANCE_TYPE], condition(c, 'Launched')]),
    ).toStrictEqual([['m5.xlarge', 'True']]);
    const stored = await w.world.ports.lease.loadUnavailableOfferings();
    expect(stored.filter((o) => o.instanceType === 'm5.large').length).toBeGreaterThan(0);
  });

  it('plans the refused zone’s pods again counting the NodeClaims the run launched, so the zonal spread keeps maxSkew', async () => {
    // Karpenter plans refused pods in its next batch, where the NodeClaims just launched are
    // in-flight capacity holding their nominated pods (scheduling/topology.go counts them).
    w = await provisionerWorld(['m5.large']);
    seedZonalSpread(w, 1);
    await run(w, 'r1');
    const zones = running(w)
      .map((i) => i.Placement?.AvailabilityZone)
      .sort();
    // One pod per m5.large: us-east-1a and us-east-1b take two each, us-east-1c's two wait for it.
    expect(zones).toStrictEqual(['us-east-1a', 'us-east-1a', 'us-east-1b', 'us-east-1b']);
  });

  it('deletes a NodeClaim nothing can launch, with an Event saying why, and reports its pods unschedulable', async () => {
    w = await provisionerWorld(['m5.large', 'm5.xlarge']);
    w.world.fakes.ec2.capacity.setCapacity({ instanceType: 'm5.large' }, 0);
    w.world.fakes.kube.store.seed(
      'pods',
      podManifest({
        name: 'pinned',
        requests: { cpu: '250m' },
        nodeSelector: { [LABEL_INSTANCE_TYPE]: 'm5.large' },
        unschedulable: true,
        ownerKind: 'ReplicaSet',
      }),
    );
    const summary = await run(w, 'r1');
    expect(summary).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(running(w)).toHaveLength(0);
    expect(claims(w).filter((c) => !c.metadata.deletionTimestamp)).toHaveLength(0);
    const events = w.world.fakes.kube.store.list('events').items as Json[];
    expect(
      events.some((e) => e.reason === 'InsufficientCapacityError' && e.involvedObject.kind === 'NodeClaim'),
    ).toBe(true);
    expect(w.seen.total('InsufficientCapacityErrors')).toBeGreaterThan(0);
  });
});

describe('provisioner: NodePools and EC2NodeClasses that cannot launch', () => {
  it('keeps provisioning for the other NodePools when one EC2NodeClass does not resolve', async () => {
    w = await provisionerWorld(['m5.large']);
    w.world.fakes.kube.store.seed(
      'ec2nodeclasses.karpenter.k8s.aws',
      ec2NodeClassManifest({ name: 'broken', discovery: 'nowhere' }),
    );
    w.world.fakes.kube.store.seed(
      'nodepools.karpenter.sh',
      nodePoolManifest({ name: 'broken', nodeClass: 'broken', weight: 100 }),
    );
    seedPendingPods(w.world, 1, '250m');
    const summary = await run(w, 'r1');
    expect(summary).toMatchObject({ nodeClaimsLaunched: 1 });
    expect(claims(w).map((c) => c.metadata.labels['karpenter.sh/nodepool'])).toEqual(['default']);
    expect(
      w.seen.lines.some(
        (l) => l.message.startsWith('EC2NodeClass not ready') && l.fields.nodeClass === 'broken',
      ),
    ).toBe(true);
  });

  it('stops at the NodePool limit within one batch and reports the rest unschedulable', async () => {
    w = await provisionerWorld(['m5.large']);
    w.world.fakes.kube.store.delete('nodepools.karpenter.sh', 'default');
    w.world.fakes.kube.store.seed(
      'nodepools.karpenter.sh',
      nodePoolManifest({
        limits: { cpu: '4' },
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
      }),
    );
    seedPendingPods(w.world, 8, '1500m');
    const summary = await run(w, 'r1');
    // m5.large: 2 vCPU, ~1.93 allocatable: one 1.5-cpu pod each, and the 4-cpu limit allows two.
    expect(summary).toMatchObject({ nodeClaimsLaunched: 2, podsUnschedulable: 6 });
    expect(running(w)).toHaveLength(2);
  });
});

describe('provisioner: NodePool status', () => {
  it('reports resources in use and Ready, and why an invalid NodePool is skipped', async () => {
    w = await provisionerWorld(['m5.large']);
    const store = w.world.fakes.kube.store;
    const bad = nodePoolManifest({ name: 'bad' }) as Json;
    store.seed('nodepools.karpenter.sh', { ...bad, spec: { ...bad.spec, limits: { cpu: '-1' } } });
    seedPendingPods(w.world, 1, '250m');
    await run(w, 'r1');
    await run(w, 'r2');
    const status = (store.get('nodepools.karpenter.sh', 'default') as Json).status;
    expect(status.resources).toMatchObject({ nodes: '1', cpu: '2' });
    const [claim] = claims(w);
    const price = Number(claim.metadata.annotations['podlift.dev/hourly-price']);
    const perPool = w.seen.metrics.filter(
      (m) => m.name === 'NodePoolDollarsPerHour' && m.dimensions.nodePool === 'default',
    );
    expect(perPool.at(-1)?.value).toBeCloseTo(price, 9);
    expect(Object.fromEntries(status.conditions.map((c: Json) => [c.type, c.status]))).toStrictEqual({
      ValidationSucceeded: 'True',
      NodeClassReady: 'True',
      Ready: 'True',
    });
    const invalid = (store.get('nodepools.karpenter.sh', 'bad') as Json).status;
    const validation = invalid.conditions.find((c: Json) => c.type === 'ValidationSucceeded');
    expect(validation).toMatchObject({ status: 'False', reason: 'ValidationFailed' });
    expect(validation.message).toContain('spec.limits.cpu');
  });
});

describe('provisioner: registration and initialization', () => {
  it('registers the Node that joins with the claim’s providerID, then initializes it once Ready', async () => {
    w = await provisionerWorld(['m5.large']);
    seedPendingPods(w.world, 1, '250m');
    await run(w, 'r1');
    const [claim] = claims(w);
    const node = nodeManifest({
      name: 'ip-10-0-0-1.ec2.internal',
      taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }],
      ready: false,
      allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
    });
    w.world.fakes.kube.store.seed('nodes', {
      ...node,
      spec: { ...node.spec, providerID: claim.status.providerID },
    });

    await run(w, 'r2');
    const registered = w.world.fakes.kube.store.get('nodes', 'ip-10-0-0-1.ec2.internal') as Json;
    expect(registered.metadata.labels[LABEL_REGISTERED]).toBe('true');
    expect(registered.metadata.labels['karpenter.sh/nodepool']).toBe('default');
    expect(registered.spec.taints ?? []).toEqual([]);
    expect(registered.metadata.finalizers).toContain('karpenter.sh/termination');
    // registration.go syncNode → UpdateNodeOwnerReferences: the Node is owned by its NodeClaim.
    expect(registered.metadata.ownerReferences).toStrictEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        name: claim.metadata.name,
        uid: claim.metadata.uid,
        blockOwnerDeletion: true,
      },
    ]);
    // The joining Node is the capacity its pod was launched for: nothing more is launched.
    expect(claims(w)).toHaveLength(1);
    expect(condition(claims(w)[0], 'Registered')).toBe('True');
    expect(claims(w)[0].status.nodeName).toBe('ip-10-0-0-1.ec2.internal');
    expect(condition(claims(w)[0], 'Initialized')).toBeUndefined();

    w.world.fakes.kube.store.updateStatus('nodes', {
      ...registered,
      status: { ...registered.status, conditions: [{ type: 'Ready', status: 'True' }] },
    });
    w.world.time.advance(42_000);
    await run(w, 'r3');
    expect(condition(claims(w)[0], 'Initialized')).toBe('True');
    expect(
      (w.world.fakes.kube.store.get('nodes', 'ip-10-0-0-1.ec2.internal') as Json).metadata.labels[
        LABEL_INITIALIZED
      ],
    ).toBe('true');
    expect(w.seen.total('NodeClaimsRegistered')).toBe(1);
    expect(w.seen.total('NodeClaimsInitialized')).toBe(1);
    // Time to capacity: from the NodeClaim's creation to its Initialized condition, in seconds.
    const created = Date.parse(claims(w)[0].metadata.creationTimestamp);
    const toInitialized = w.seen.metrics.filter((m) => m.name === 'NodeClaimTimeToInitialized');
    expect(toInitialized).toEqual([
      {
        name: 'NodeClaimTimeToInitialized',
        unit: 'Seconds',
        value: (w.world.time.now() - created) / 1000,
        dimensions: {},
      },
    ]);
    expect(toInitialized[0].value).toBeGreaterThanOrEqual(42);
  });
});

describe('provisioner: one Node the API server refuses', () => {
  it('registers the other Nodes and tries the refused one again next run, as Karpenter reconciles each NodeClaim alone', async () => {
    w = await provisionerWorld(['m5.large']);
    seedPendingPods(w.world, 2, '1500m');
    await run(w, 'r1');
    const launched = claims(w);
    expect(launched).toHaveLength(2);
    const names = ['ip-10-0-0-1.ec2.internal', 'ip-10-0-0-2.ec2.internal'];
    launched.forEach((claim, i) => {
      const node = nodeManifest({ name: names[i], ready: false, allocatable: { cpu: '1930m', pods: '29' } });
      w?.world.fakes.kube.store.seed('nodes', {
        ...node,
        spec: { ...node.spec, providerID: claim.status.providerID },
      });
    });
    // Every write to the first Node fails for this run's attempts (a webhook refusing it, say).
    w.world.fakes.kube.failNext('patch', `/api/v1/nodes/${names[0]}`, 503, { times: 20 });

    await run(w, 'r2');
    const byNode = (name: string) => claims(w as ProvisionerWorld).find((c) => c.status.nodeName === name);
    expect(byNode(names[1])).toBeDefined();
    expect(condition(byNode(names[1]) as Json, 'Registered')).toBe('True');
    expect(byNode(names[0])).toBeUndefined();
    expect(w.seen.total('NodeClaimsRegistered')).toBe(1);

    w.world.fakes.kube.clearFaults();
    await run(w, 'r3');
    expect(condition(byNode(names[0]) as Json, 'Registered')).toBe('True');
    expect(w.seen.total('NodeClaimsRegistered')).toBe(2);
  });
});
