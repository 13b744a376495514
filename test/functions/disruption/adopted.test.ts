import { afterEach, describe, expect, it } from 'vitest';
import { DRIFT_HASH_VERSION } from '../../../shared/core/model/drift-hash';
import type { KubeObject } from '../../../sim/fakes/kube';
import type { ProvisionerWorld } from '../provisioner/world';
import { bound, claim, disruptionWorld, events, type Json } from './world';

let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const NODECLAIMS = 'nodeclaims.karpenter.sh';
const labelled = (spec: Json) => ({
  ...spec,
  template: { ...spec.template, metadata: { labels: { team: 'b' } } },
});

/** Rewrites NodeClaim `name` in the API server with `edit`. */
function rewrite(pw: ProvisionerWorld, name: string, edit: (claim: Json) => Json) {
  pw.world.fakes.kube.store.update(NODECLAIMS, edit(structuredClone(claim(pw, name))) as KubeObject);
}

/** As Karpenter left it: no podlift price, its own hash versions and hashes. */
const asKarpenterLeftIt = (c: Json) => {
  const { 'podlift.dev/hourly-price': _price, ...annotations } = c.metadata.annotations;
  return {
    ...c,
    metadata: {
      ...c.metadata,
      annotations: {
        ...annotations,
        'karpenter.sh/nodepool-hash': '5614353405478404402',
        'karpenter.sh/nodepool-hash-version': 'v3',
        'karpenter.k8s.aws/ec2nodeclass-hash': '1234567890',
        'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
      },
    },
  };
};

describe('disruption: NodeClaims carried over from Karpenter', () => {
  // nodepool/hash/controller.go and nodeclass/hash/controller.go `updateNodeClaimHash`.
  it('re-stamps their hash versions so a NodePool change afterwards is drift', async () => {
    const t = await disruptionWorld([bound('web')], (spec) => ({
      ...spec,
      disruption: { consolidateAfter: 'Never', budgets: [{ nodes: '0' }] },
    }));
    w = t.pw;
    rewrite(t.pw, t.claimName, asKarpenterLeftIt);
    expect((await t.disrupt())?.steps).toEqual(['none']);
    const annotations = claim(t.pw, t.claimName).metadata.annotations;
    expect(annotations['karpenter.sh/nodepool-hash-version']).toBe(DRIFT_HASH_VERSION);
    expect(annotations['karpenter.k8s.aws/ec2nodeclass-hash-version']).toBe(DRIFT_HASH_VERSION);
    expect(annotations['karpenter.sh/nodepool-hash']).not.toBe('5614353405478404402');
    expect(annotations['karpenter.k8s.aws/ec2nodeclass-hash']).not.toBe('1234567890');
    const drifted = () =>
      (claim(t.pw, t.claimName).status.conditions as Json[]).find((c) => c.type === 'Drifted');
    expect(drifted()).toBeUndefined();
    const store = t.pw.world.fakes.kube.store;
    const pool = store.get('nodepools.karpenter.sh', 'default') as Json;
    store.update('nodepools.karpenter.sh', { ...pool, spec: labelled(pool.spec) });
    await t.disrupt();
    expect(drifted()).toMatchObject({ status: 'True', reason: 'NodePoolDrifted' });
  });

  it('prices them from the catalog, and says so with an Unconsolidatable Event when it cannot', async () => {
    const t = await disruptionWorld([bound('web')], (spec) => ({
      ...spec,
      disruption: { consolidateAfter: 'Never', budgets: [{ nodes: '0' }] },
    }));
    w = t.pw;
    rewrite(t.pw, t.claimName, (c) => {
      const adopted = asKarpenterLeftIt(c);
      return {
        ...adopted,
        metadata: {
          ...adopted.metadata,
          labels: { ...adopted.metadata.labels, 'node.kubernetes.io/instance-type': 'x9.huge' },
        },
      };
    });
    const node = (t.pw.world.fakes.kube.store.list('nodes').items as Json[])[0];
    t.pw.world.fakes.kube.store.update('nodes', {
      ...node,
      metadata: {
        ...node.metadata,
        labels: { ...node.metadata.labels, 'node.kubernetes.io/instance-type': 'x9.huge' },
      },
    } as KubeObject);
    await t.disrupt();
    expect(
      events(t.pw)
        .filter((e) => e.reason === 'Unconsolidatable')
        .map((e) => e.message),
    ).toContain('Instance Type "x9.huge" not found');
  });

  // types.go `NewCandidate`: the eventual class with terminationGracePeriod ignores pod-level blocks.
  it('drifts a node whose only pod has do-not-disrupt when the NodeClaim has a terminationGracePeriod, making no room for it', async () => {
    const t = await disruptionWorld([bound('guarded', { 'karpenter.sh/do-not-disrupt': 'true' })], labelled);
    w = t.pw;
    rewrite(t.pw, t.claimName, (c) => ({ ...c, spec: { ...c.spec, terminationGracePeriod: '1h' } }));
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const command = JSON.parse(
      claim(t.pw, t.claimName).metadata.annotations['podlift.dev/disruption-command'],
    );
    expect(command).toMatchObject({ method: 'drift', replace: true });
    t.pw.world.time.advance(20_000);
    expect((await t.disrupt())?.steps).toEqual([`executed ${command.id}`]);
    expect(claim(t.pw, t.claimName).metadata.deletionTimestamp).toBeDefined();
    const made = t.pw.world.fakes.kube.store.list(NODECLAIMS).items as Json[];
    expect(made.filter((c) => c.metadata.annotations?.['podlift.dev/replaces'])).toEqual([]);
  });
});
