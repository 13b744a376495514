import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeDisruptionHandler } from '../../../functions/disruption/handler';
import { runtimeOf } from '../../../functions/runtime';
import { kubeTime } from '../../../shared/kube/conditions';
import type { KubeObject } from '../../../sim/fakes/kube';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { nodeManifest, podManifest } from '../../../sim/world/builders';
import {
  lambdaContext,
  type ProvisionerWorld,
  provisionerWorld,
  scheduledEvent,
  seedPendingPods,
} from '../provisioner/world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const NODECLAIMS = 'nodeclaims.karpenter.sh';
const podOn = (name: string, nodeName: string) => ({
  ...podManifest({ name, nodeName, ready: true, ownerKind: 'ReplicaSet', requests: { cpu: '250m' } }),
  metadata: {
    name,
    namespace: 'default',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', controller: true }],
  },
});

/**
 * `count` initialized m5.large NodeClaims with their Nodes `node-0`…, in the order the API server
 * lists the claims, node `i` running `pods[i]` pods; the default NodePool's spec changed by `pool`;
 * and the disruption handler.
 */
async function driftWorld(pods: readonly number[], pool: (spec: Json) => Json) {
  const pw = await provisionerWorld(['m5.large']);
  w = pw;
  seedPendingPods(pw.world, pods.length, '1500m', 'seed'); // one m5.large each
  await pw.handler(scheduledEvent('p1'), lambdaContext('p1'));
  const store = pw.world.fakes.kube.store;
  const made = store.list(NODECLAIMS).items as Json[];
  expect(made).toHaveLength(pods.length);
  for (const p of store.list('pods').items)
    store.delete('pods', p.metadata.name ?? '', { namespace: p.metadata.namespace });
  made.forEach((claim, i) => {
    const node = nodeManifest({
      name: `node-${i}`,
      ready: true,
      allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
    });
    store.seed('nodes', { ...node, spec: { ...node.spec, providerID: claim.status.providerID } });
    for (let p = 0; p < pods[i]; p++) store.seed('pods', podOn(`web-${i}-${p}`, `node-${i}`));
  });
  await pw.handler(scheduledEvent('p2'), lambdaContext('p2')); // registers
  await pw.handler(scheduledEvent('p3'), lambdaContext('p3')); // initializes
  editPool(pw, pool);
  const seen = new RecordingObservability();
  const runtime = runtimeOf('disruption', pw.world.ports, pw.world.time, seen.log, seen.metricsPort);
  let n = 0;
  const disrupt = () =>
    makeDisruptionHandler(() => runtime)(scheduledEvent(`d${++n}`), lambdaContext(`d${n}`));
  return { pw, names: made.map((c) => c.metadata.name as string), seen, disrupt };
}

function editPool(pw: ProvisionerWorld, edit: (spec: Json) => Json) {
  const store = pw.world.fakes.kube.store;
  const current = store.get('nodepools.karpenter.sh', 'default') as Json;
  store.update('nodepools.karpenter.sh', { ...current, spec: edit(structuredClone(current.spec)) });
}

const claim = (pw: ProvisionerWorld, name: string) => pw.world.fakes.kube.store.get(NODECLAIMS, name) as Json;
const drifted = (pw: ProvisionerWorld, name: string) =>
  (claim(pw, name).status.conditions as Json[]).find((c) => c.type === 'Drifted');
const statusWrites = (pw: ProvisionerWorld, name: string) =>
  pw.world.fakes.kube.requests.filter(
    (r) => r.method === 'PUT' && r.path === `/apis/karpenter.sh/v1/nodeclaims/${name}/status`,
  ).length;
const labelled = (team: string) => (spec: Json) => ({
  ...spec,
  template: { ...spec.template, metadata: { labels: { team } } },
});
const budget =
  (nodes: string, consolidateAfter = '0s') =>
  (spec: Json) => ({
    ...spec,
    disruption: { consolidateAfter, budgets: [{ nodes }] },
  });
/** Makes NodeClaim `name` look made from an older NodePool template (its recorded hash differs). */
function oldTemplate(pw: ProvisionerWorld, name: string) {
  const current = claim(pw, name);
  pw.world.fakes.kube.store.update(NODECLAIMS, {
    ...current,
    metadata: {
      ...current.metadata,
      annotations: { ...current.metadata.annotations, 'karpenter.sh/nodepool-hash': 'older' },
    },
  } as KubeObject);
}

describe('disruption: the Drifted condition', () => {
  it('records Drifted=True with the reason on the NodeClaim status once, and removes it when the drift is undone', async () => {
    const t = await driftWorld([1], labelled('payments'));
    const [name] = t.names;
    const before = statusWrites(t.pw, name);
    const decidedAt = t.pw.world.time.now();
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    expect(drifted(t.pw, name)).toEqual({
      type: 'Drifted',
      status: 'True',
      reason: 'NodePoolDrifted',
      message: 'NodePool default changed',
      lastTransitionTime: kubeTime(decidedAt),
      observedGeneration: claim(t.pw, name).metadata.generation,
    });
    // One for Drifted; one for the pods first seen on the node (lastPodEventTime, consolidatable.ts).
    expect(statusWrites(t.pw, name)).toBe(before + 2);
    expect(t.seen.total('NodeClaimsDrifted', { reason: 'NodePoolDrifted' })).toBe(1);

    t.pw.world.time.advance(5_000);
    const requests = t.pw.world.fakes.kube.requests.length;
    expect((await t.disrupt())?.steps[0]).toMatch(/^waiting /);
    // No transition: the NodeClaim is not even read on its own, let alone written.
    const touched = t.pw.world.fakes.kube.requests
      .slice(requests)
      .filter((r) => r.path.startsWith(`/apis/karpenter.sh/v1/nodeclaims/${name}`));
    expect(touched).toEqual([]);
    expect(drifted(t.pw, name)?.lastTransitionTime).toBe(kubeTime(decidedAt));

    editPool(t.pw, (spec) => ({ ...spec, template: { ...spec.template, metadata: {} } }));
    t.pw.world.time.advance(15_000);
    expect((await t.disrupt())?.steps[0]).toMatch(/^cancelled /);
    expect(drifted(t.pw, name)).toBeUndefined();
    expect((claim(t.pw, name).status.conditions as Json[]).map((c) => c.type)).toContain('Initialized');
  });

  it('writes the condition through a conflicting update, keeping what the other writer set', async () => {
    const t = await driftWorld([1], labelled('payments'));
    const [name] = t.names;
    const store = t.pw.world.fakes.kube.store;
    const get = store.get.bind(store);
    let injected = false;
    // Recent, so the run's own pod-event write leaves it (the 10 s dedupe) and it shows whose it is.
    const otherWriters = kubeTime(t.pw.world.time.now());
    vi.spyOn(store, 'get').mockImplementation((resource, objectName, namespace) => {
      const read = get(resource, objectName, namespace);
      if (!injected && resource === store.resolve(NODECLAIMS) && objectName === name) {
        injected = true; // another writer changes the status between the loop's read and its write
        store.updateStatus(NODECLAIMS, {
          ...read,
          status: { ...(read.status as Json), lastPodEventTime: otherWriters },
        });
      }
      return read;
    });
    const from = t.pw.world.fakes.kube.requests.length;
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const writes = t.pw.world.fakes.kube.requests
      .slice(from)
      .filter((r) => r.method === 'PUT' && r.path === `/apis/karpenter.sh/v1/nodeclaims/${name}/status`);
    // Drifted (409, then 200), then Consolidatable.
    expect(writes.map((r) => r.status)).toEqual([409, 200, 200]);
    expect(drifted(t.pw, name)?.reason).toBe('NodePoolDrifted');
    expect(claim(t.pw, name).status.lastPodEventTime).toBe(otherWriters);
  });

  it('replaces the node that drifted first, not the first one listed', async () => {
    const t = await driftWorld([1, 1], budget('0'));
    const [first, second] = t.names;
    oldTemplate(t.pw, second);
    expect(await t.disrupt()).toMatchObject({ steps: ['none'] }); // the budget allows none yet
    expect(drifted(t.pw, second)?.status).toBe('True');
    expect(drifted(t.pw, first)).toBeUndefined();
    t.pw.world.time.advance(600_000);
    oldTemplate(t.pw, first);
    await t.disrupt();
    expect(Date.parse(drifted(t.pw, first)?.lastTransitionTime)).toBeGreaterThan(
      Date.parse(drifted(t.pw, second)?.lastTransitionTime),
    );
    editPool(t.pw, budget('1'));
    // A budget is not part of the NodePool's hash: nothing else drifts by it.
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const command = JSON.parse(claim(t.pw, second).metadata.annotations['podlift.dev/disruption-command']);
    expect(command).toMatchObject({ method: 'drift', candidates: [second], replace: true });
    expect(claim(t.pw, first).metadata.annotations['podlift.dev/disruption-command']).toBeUndefined();
  });

  it('deletes the empty drifted nodes the budget allows together, without replacements, before a busy one', async () => {
    // consolidateAfter Never: emptiness leaves the empty nodes to drift.
    const t = await driftWorld([1, 0, 0], (spec) => budget('2', 'Never')(labelled('payments')(spec)));
    const [busy, ...empty] = t.names;
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const command = JSON.parse(claim(t.pw, empty[0]).metadata.annotations['podlift.dev/disruption-command']);
    expect(command).toMatchObject({ method: 'drift', replace: false });
    expect([...command.candidates].sort()).toEqual([...empty].sort());
    expect(claim(t.pw, busy).metadata.annotations['podlift.dev/disruption-command']).toBeUndefined();
    t.pw.world.time.advance(20_000);
    expect((await t.disrupt())?.steps).toEqual([`executed ${command.id}`]);
    for (const name of empty) expect(claim(t.pw, name).metadata.deletionTimestamp).toBeDefined();
    expect(claim(t.pw, busy).metadata.deletionTimestamp).toBeUndefined();
    const claims = t.pw.world.fakes.kube.store.list(NODECLAIMS).items as Json[];
    expect(claims.some((c) => c.metadata.annotations?.['podlift.dev/replaces'])).toBe(false);
  });

  // queue.go: commands run side by side, a candidate belongs to one (`HasAny`); Karpenter's
  // drift_test.go "should drift nodes one at a time, requeueing" takes the next while one waits.
  it('goes on disrupting another candidate while a command waits for its replacement', async () => {
    // 1 cpu of pods each: neither node's pods fit beside the other's, so each needs a replacement.
    const t = await driftWorld([4, 4], (spec) => budget('2')(labelled('payments')(spec)));
    const [first, second] = t.names;
    expect((await t.disrupt())?.steps).toEqual(['recorded drift']);
    const ids = () =>
      t.names.flatMap((n) => {
        const text = claim(t.pw, n).metadata.annotations['podlift.dev/disruption-command'];
        return text ? [JSON.parse(text).id as string] : [];
      });
    const [firstId] = ids();
    t.pw.world.time.advance(20_000);
    expect((await t.disrupt())?.steps).toEqual([`replacing ${firstId}`, 'recorded drift']);
    const [a, b] = ids();
    expect(a).not.toBe(b);
    t.pw.world.time.advance(20_000);
    expect([...((await t.disrupt())?.steps ?? [])].sort()).toEqual(
      [`replacing ${a}`, `replacing ${b}`].sort(),
    );
    const replacing = (t.pw.world.fakes.kube.store.list(NODECLAIMS).items as Json[]).map(
      (c) => c.metadata.annotations?.['podlift.dev/replaces'],
    );
    expect(replacing.filter(Boolean).sort()).toEqual([a, b].sort());
    expect(claim(t.pw, first).metadata.deletionTimestamp).toBeUndefined();
    expect(claim(t.pw, second).metadata.deletionTimestamp).toBeUndefined();
  });
});
