import { describe, expect, it } from 'vitest';
import { MAX_DELETION_COST_WRITES } from '../../../functions/disruption/steering';
import { METRICS } from '../../../functions/observability';
import { NODE } from '../provisioner/world';
import { bound, disruptionWorld, type Json, taints } from './world';

// Scale-down steering through the real client and the fake API server, with the functions' RBAC
// (manifests/functions-rbac.yaml: patch on pods): shared/core/disruption/deletion-cost.ts decides.
const COST = 'controller.kubernetes.io/pod-deletion-cost';
const MARK = 'podlift.dev/managed-deletion-cost';

const annotationsOf = (w: Awaited<ReturnType<typeof disruptionWorld>>, name: string) =>
  ((w.pw.world.fakes.kube.store.get('pods', name, 'default') as Json).metadata.annotations ?? {}) as Record<
    string,
    string
  >;

describe('the disruption loop steers scale-downs with pod-deletion-cost', () => {
  it('with PodDeletionCostManagement writes the cost on the ReplicaSet pods, once', async () => {
    const w = await disruptionWorld([bound('web-1'), bound('web-2', { [COST]: '5' })], undefined, undefined, {
      podDeletionCostManagement: true,
    });
    await w.disrupt();
    // The m5.large's $0.096/h over its two ReplicaSet pods, $0.048/h a pod, and its name's hash (steeredCost).
    expect(annotationsOf(w, 'web-1')).toMatchObject({ [COST]: '-100480907', [MARK]: '-100480907' });
    expect(annotationsOf(w, 'web-2')).toEqual({ [COST]: '5' });
    expect(w.seen.total(METRICS.podDeletionCostsWritten)).toBe(1);
    await w.disrupt();
    expect(w.seen.total(METRICS.podDeletionCostsWritten)).toBe(1);
  });

  it('with the gate off removes the costs it wrote and leaves a user’s', async () => {
    const w = await disruptionWorld([
      bound('web-1', { [COST]: '-50', [MARK]: '-50' }),
      bound('web-2', { [COST]: '5' }),
    ]);
    await w.disrupt();
    expect(annotationsOf(w, 'web-1')).toEqual({});
    expect(annotationsOf(w, 'web-2')).toEqual({ [COST]: '5' });
    expect(w.seen.total(METRICS.podDeletionCostsWritten)).toBe(1);
  });

  it('never writes over a cost a user set after the run read the pod: the write is refused and skipped', async () => {
    const w = await disruptionWorld([bound('web-1'), bound('web-2')], undefined, undefined, {
      podDeletionCostManagement: true,
    });
    const { cluster } = w.pw.world.ports;
    const write = cluster.patchPodMetadata.bind(cluster);
    let raced = false;
    // A user sets web-1's cost between the run's read and its write.
    cluster.patchPodMetadata = async (pod, patch) => {
      if (!raced && pod.name === 'web-1') {
        raced = true;
        w.pw.world.fakes.kube.store.patch(
          'pods',
          'web-1',
          { metadata: { annotations: { [COST]: '42' } } },
          'application/merge-patch+json',
          { namespace: 'default' },
        );
      }
      return write(pod, patch);
    };
    await w.disrupt();
    expect(annotationsOf(w, 'web-1')).toEqual({ [COST]: '42' });
    expect(annotationsOf(w, 'web-2')[COST]).toBe('-100480907');
    expect(w.seen.linesSaying('writing pod-deletion-cost failed; the next run tries again')).toEqual([]);
    // Read again, the user's cost is the user's.
    await w.disrupt();
    expect(annotationsOf(w, 'web-1')).toEqual({ [COST]: '42' });
  });

  it('stops writing for the run on a refusal, logs it once and finishes the run; the next run writes', async () => {
    const w = await disruptionWorld([bound('web-1'), bound('web-2')], undefined, undefined, {
      podDeletionCostManagement: true,
    });
    w.pw.world.fakes.kube.failNext('patch', /\/pods\/web-/, 503);
    const summary = (await w.disrupt()) as Json;
    expect(summary.ran).toBe(true);
    expect(w.seen.linesSaying('writing pod-deletion-cost failed; the next run tries again')).toHaveLength(1);
    expect([annotationsOf(w, 'web-1')[COST], annotationsOf(w, 'web-2')[COST]]).toEqual([
      undefined,
      undefined,
    ]);
    await w.disrupt();
    expect([annotationsOf(w, 'web-1')[COST], annotationsOf(w, 'web-2')[COST]]).toEqual([
      '-100480907',
      '-100480907',
    ]);
  });

  it(`writes at most ${MAX_DELETION_COST_WRITES} pods a run`, async () => {
    const many = Array.from({ length: MAX_DELETION_COST_WRITES + 2 }, (_, i) => bound(`web-${i}`));
    const w = await disruptionWorld(many, undefined, undefined, { podDeletionCostManagement: true });
    await w.disrupt();
    expect(w.seen.total(METRICS.podDeletionCostsWritten)).toBe(MAX_DELETION_COST_WRITES);
    await w.disrupt();
    expect(w.seen.total(METRICS.podDeletionCostsWritten)).toBe(MAX_DELETION_COST_WRITES + 2);
  });
});

// Scale-up steering (shared/core/disruption/candidate-taint.ts decides) through the real client and
// the fake API server, with the functions' RBAC (patch on nodes).
describe('the disruption loop steers scale-ups with the disruption-candidate taint', () => {
  const CANDIDATE = { key: 'podlift.dev/disruption-candidate', effect: 'PreferNoSchedule' };
  const USERS = { key: 'example.com/team', value: 'a', effect: 'PreferNoSchedule' };
  const setTaints = (w: Awaited<ReturnType<typeof disruptionWorld>>, list: Json[]) => {
    const store = w.pw.world.fakes.kube.store;
    const node = store.get('nodes', NODE) as Json;
    store.update('nodes', {
      ...node,
      spec: { ...node.spec, taints: [...(node.spec.taints ?? []), ...list] },
    });
  };

  it('with CandidateTaint puts the taint on an empty node, once, and keeps everyone else’s', async () => {
    const w = await disruptionWorld([], undefined, undefined, { candidateTaint: true });
    setTaints(w, [USERS]);
    await w.disrupt();
    expect(taints(w.pw)).toEqual(expect.arrayContaining([USERS, CANDIDATE]));
    expect(w.seen.total(METRICS.candidateTaintsChanged)).toBe(1);
    expect(w.seen.linesSaying('disruption-candidate taint written to steer scale-ups')).toHaveLength(1);
    await w.disrupt();
    expect(w.seen.total(METRICS.candidateTaintsChanged)).toBe(1);
  });

  it('takes it off a node that is no longer a candidate, and off every node with the gate off', async () => {
    // A node whose two pods no cheaper node holds (EC2 sells only m5.large): not a candidate.
    const busy = await disruptionWorld([bound('web-1'), bound('web-2')], undefined, ['m5.large'], {
      candidateTaint: true,
    });
    setTaints(busy, [CANDIDATE, USERS]);
    await busy.disrupt();
    expect(taints(busy.pw)).toEqual([USERS]);
    const off = await disruptionWorld([]);
    setTaints(off, [CANDIDATE]);
    await off.disrupt();
    expect(taints(off.pw).filter((t) => t.key === CANDIDATE.key)).toEqual([]);
    expect(off.seen.total(METRICS.candidateTaintsChanged)).toBe(1);
  });

  it('stops writing for the run on a refusal, logs it once and finishes the run; the next run writes', async () => {
    const w = await disruptionWorld([], undefined, undefined, { candidateTaint: true });
    w.pw.world.fakes.kube.failNext('patch', new RegExp(`/nodes/${NODE}$`), 503);
    const summary = (await w.disrupt()) as Json;
    expect(summary.ran).toBe(true);
    expect(
      w.seen.linesSaying('writing the disruption-candidate taint failed; the next run tries again'),
    ).toHaveLength(1);
    expect(taints(w.pw)).not.toContainEqual(CANDIDATE);
    await w.disrupt();
    expect(taints(w.pw)).toContainEqual(CANDIDATE);
  });
});
