import { afterEach, describe, expect, it } from 'vitest';
import { nodeManifest, podManifest } from '../../../sim/world/builders';
import { lambdaContext, type ProvisionerWorld, provisionerWorld, scheduledEvent } from './world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const events = (pw: ProvisionerWorld, reason: string) =>
  (pw.world.fakes.kube.store.list('events').items as Json[]).filter((e) => e.reason === reason);
const run = (pw: ProvisionerWorld, id: string) => pw.handler(scheduledEvent(id), lambdaContext(id));

describe('provisioner: pod Events are said once', () => {
  it('posts FailedScheduling once while nothing changes, and again when the reason does', async () => {
    w = await provisionerWorld();
    const store = w.world.fakes.kube.store;
    store.seed(
      'pods',
      podManifest({ name: 'huge', requests: { cpu: '64' }, unschedulable: true, ownerKind: 'ReplicaSet' }),
    );
    expect(await run(w, 'r1')).toMatchObject({ podsUnschedulable: 1 });
    const [first] = events(w, 'FailedScheduling');
    expect(first).toMatchObject({ type: 'Warning', count: 1, involvedObject: { kind: 'Pod', name: 'huge' } });

    for (const id of ['r2', 'r3', 'r4']) {
      w.world.time.advance(60_000);
      await run(w, id);
    }
    const after = events(w, 'FailedScheduling');
    expect(after).toHaveLength(1);
    // Not even counted: the Event was not written again.
    expect(after[0].metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    // The NodePool no longer allows on-demand: the reason changes, and the pod is told.
    const pool = store.get('nodepools.karpenter.sh', 'default') as Json;
    const spec = structuredClone(pool.spec);
    spec.template.spec.requirements = [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved'] },
    ];
    store.update('nodepools.karpenter.sh', { ...pool, spec });
    w.world.time.advance(60_000);
    await run(w, 'r5');
    const changed = events(w, 'FailedScheduling');
    expect(changed).toHaveLength(2);
    expect(new Set(changed.map((e) => e.message)).size).toBe(2);
  });

  it('writes at most 200 Events a run; the next run tells the pods the first did not reach', async () => {
    w = await provisionerWorld();
    const store = w.world.fakes.kube.store;
    for (let i = 0; i < 230; i++)
      store.seed(
        'pods',
        podManifest({
          name: `huge-${i}`,
          requests: { cpu: '64' },
          unschedulable: true,
          ownerKind: 'ReplicaSet',
        }),
      );
    await run(w, 'r1');
    expect(events(w, 'FailedScheduling')).toHaveLength(200);
    w.world.time.advance(60_000);
    await run(w, 'r2');
    const all = events(w, 'FailedScheduling');
    expect(all).toHaveLength(230);
    expect(all.every((e) => e.count === 1)).toBe(true);
  });
});

describe('provisioner: Nominated on existing capacity (events.go NominatePodEvent, scheduler.go Solve)', () => {
  const nominated = (pw: ProvisionerWorld, pod: string) =>
    events(pw, 'Nominated')
      .filter((e) => e.involvedObject.name === pod)
      .map((e) => e.message);
  const pending = (pw: ProvisionerWorld, name: string) =>
    pw.world.fakes.kube.store.seed(
      'pods',
      podManifest({
        name,
        uid: `uid-${name}`,
        requests: { cpu: '300m' },
        unschedulable: true,
        ownerKind: 'ReplicaSet',
      }),
    );

  it('nominates pods placed on an in-flight NodeClaim to it, and on its Node to both, once', async () => {
    w = await provisionerWorld();
    pending(w, 'first');
    await run(w, 'r1');
    const claim = w.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items[0] as Json;
    const name = claim.metadata.name;
    expect(nominated(w, 'first')).toStrictEqual([`Pod should schedule on: nodeclaim/${name}`]);

    pending(w, 'second');
    w.world.time.advance(10_000);
    expect(await run(w, 'r2')).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(nominated(w, 'second')).toStrictEqual([`Pod should schedule on: nodeclaim/${name}`]);

    const node = nodeManifest({ name: 'ip-10-0-0-9.ec2.internal', nodePool: 'default', ready: true });
    w.world.fakes.kube.store.seed('nodes', {
      ...node,
      spec: { ...node.spec, providerID: claim.status.providerID },
    });
    pending(w, 'third');
    w.world.time.advance(10_000);
    expect(await run(w, 'r3')).toMatchObject({ nodeClaimsLaunched: 0 });
    const both = `Pod should schedule on: nodeclaim/${name}, node/ip-10-0-0-9.ec2.internal`;
    expect(nominated(w, 'third')).toStrictEqual([both]);
    // The pods nominated earlier are told once of the change, and not again while nothing changes.
    expect(nominated(w, 'first')).toContain(both);
    const count = events(w, 'Nominated').length;
    w.world.time.advance(10_000);
    await run(w, 'r4');
    expect(events(w, 'Nominated')).toHaveLength(count);
  });

  it('nominates a pod placed on a Node no NodeClaim manages to the Node alone', async () => {
    w = await provisionerWorld();
    w.world.fakes.kube.store.seed('nodes', nodeManifest({ name: 'unmanaged', ready: true }));
    pending(w, 'lone');
    expect(await run(w, 'r1')).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(nominated(w, 'lone')).toStrictEqual(['Pod should schedule on: node/unmanaged']);
  });
});
