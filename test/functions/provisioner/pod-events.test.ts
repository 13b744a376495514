import { afterEach, describe, expect, it } from 'vitest';
import { podManifest } from '../../../sim/world/builders';
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
