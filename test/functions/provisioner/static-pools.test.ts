import { afterEach, describe, expect, it } from 'vitest';
import { nodeManifest, nodePoolManifest, podManifest } from '../../../sim/world/builders';
import { lambdaContext, type ProvisionerWorld, provisionerWorld, scheduledEvent } from './world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

/** A world whose only podlift NodePool is static: `replicas` nodes, `limits`. */
async function staticWorld(replicas: number, limits: Record<string, string>) {
  const pw = await provisionerWorld(['m5.large', 'm5.xlarge']);
  const store = pw.world.fakes.kube.store;
  store.delete('nodepools.karpenter.sh', 'default');
  const manifest = nodePoolManifest({ name: 'fixed', limits }) as Json;
  store.seed('nodepools.karpenter.sh', { ...manifest, spec: { ...manifest.spec, replicas } });
  return pw;
}

const active = (pw: ProvisionerWorld) =>
  (pw.world.fakes.kube.store.list('nodeclaims.karpenter.sh').items as Json[]).filter(
    (c) => !c.metadata.deletionTimestamp,
  );
const run = (pw: ProvisionerWorld, id: string) => pw.handler(scheduledEvent(id), lambdaContext(id));

describe('provisioner: static NodePools', () => {
  it('keeps exactly `replicas` nodes, and replaces one that is lost', async () => {
    w = await staticWorld(2, { nodes: '10' });
    expect(await run(w, 'r1')).toMatchObject({ nodeClaimsLaunched: 2 });
    expect(active(w).map((c) => c.metadata.labels['karpenter.sh/nodepool'])).toEqual(['fixed', 'fixed']);
    expect(await run(w, 'r2')).toMatchObject({ nodeClaimsLaunched: 0 });

    const lost = active(w)[0];
    const store = w.world.fakes.kube.store;
    store.update('nodeclaims.karpenter.sh', { ...lost, metadata: { ...lost.metadata, finalizers: [] } });
    store.delete('nodeclaims.karpenter.sh', lost.metadata.name);
    expect(await run(w, 'r3')).toMatchObject({ nodeClaimsLaunched: 1 });
    expect(active(w)).toHaveLength(2);
  });

  it('never goes past limits.nodes', async () => {
    w = await staticWorld(3, { nodes: '1' });
    await run(w, 'r1');
    await run(w, 'r2');
    expect(active(w)).toHaveLength(1);
  });

  it('after replicas is lowered, deletes the surplus NodeClaims, empty nodes before a node with pods', async () => {
    w = await staticWorld(3, { nodes: '10' });
    await run(w, 'r1');
    const store = w.world.fakes.kube.store;
    const [busy] = active(w);
    const node = nodeManifest({ name: 'ip-10-0-0-9.ec2.internal', ready: true });
    store.seed('nodes', { ...node, spec: { ...node.spec, providerID: busy.status.providerID } });
    store.seed(
      'pods',
      podManifest({
        name: 'app',
        nodeName: 'ip-10-0-0-9.ec2.internal',
        ready: true,
        ownerKind: 'ReplicaSet',
      }),
    );
    const pool = store.get('nodepools.karpenter.sh', 'fixed') as Json;
    store.update('nodepools.karpenter.sh', { ...pool, spec: { ...pool.spec, replicas: 1 } });

    expect(await run(w, 'r2')).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(active(w).map((c) => c.metadata.name)).toEqual([busy.metadata.name]);
    const deleting = (store.list('nodeclaims.karpenter.sh').items as Json[]).filter(
      (c) => c.metadata.deletionTimestamp,
    );
    // Deleted, not removed: the termination finalizer keeps them for termination's drain.
    expect(deleting).toHaveLength(2);
    expect(deleting.every((c) => c.metadata.finalizers.includes('karpenter.sh/termination'))).toBe(true);
    expect(w.seen.lines.filter((l) => l.message.startsWith('static NodePool has more nodes'))).toHaveLength(
      2,
    );

    // A second run finds nothing more to do, and launches nothing back.
    expect(await run(w, 'r3')).toMatchObject({ nodeClaimsLaunched: 0 });
    expect(active(w)).toHaveLength(1);
    expect(w.seen.lines.filter((l) => l.message.startsWith('static NodePool has more nodes'))).toHaveLength(
      2,
    );
  });
});
