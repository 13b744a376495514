import { describe, expect, it } from 'vitest';
import { nodeClaimManifest, nodeManifest, nodePoolManifest, podManifest } from '../../sim/world/builders';
import {
  commandValidationDueAt,
  generationDigest,
  generationHints,
  nodeClaimDigest,
  nodeClaimHints,
  nodePoolDigest,
} from '../../watcher/karpenter-object-hints';
import { nodeDigest, nodeHints } from '../../watcher/node-hints';
import { podDigest, podHints } from '../../watcher/pod-hints';
import type { ObjectChange } from '../../watcher/reflector';

function modified<D>(previous: D, current: D): ObjectChange<D> {
  return { type: 'modified', key: 'k', previous, current, initial: false };
}

const withUid = (object: ReturnType<typeof podManifest>) => ({
  ...object,
  metadata: { ...object.metadata, uid: 'u1' },
});

describe('pod hints', () => {
  it('sees a pod become unschedulable once, and not while it is being deleted', () => {
    const waiting = podDigest(withUid(podManifest({ name: 'web', unschedulable: true })));
    expect(podHints(modified(podDigest(withUid(podManifest({ name: 'web' }))), waiting))).toEqual([
      { type: 'PodsPending', pod: { namespace: 'default', name: 'web', uid: 'u1' } },
    ]);
    expect(podHints(modified(waiting, waiting))).toEqual([]);
    const terminating = podManifest({
      name: 'web',
      unschedulable: true,
      deletionTimestamp: '2026-11-21T12:00:00Z',
    });
    expect(podDigest(terminating).unschedulable).toBe(false);
  });

  it('counts a pod that finishes on its node as removed from it, once', () => {
    const running = podDigest(podManifest({ name: 'job', nodeName: 'n1', phase: 'Running' }));
    const done = podDigest(podManifest({ name: 'job', nodeName: 'n1', phase: 'Succeeded' }));
    expect(podHints(modified(running, done))).toEqual([
      { type: 'CapacityChanged', change: { reason: 'podRemoved', name: 'default/job' } },
    ]);
    expect(podHints({ type: 'deleted', key: 'default/job', previous: done, initial: false })).toEqual([]);
  });
});

describe('node hints', () => {
  it('reports Ready only on the transition', () => {
    const ready = nodeDigest(nodeManifest({ name: 'n1', ready: true }));
    expect(nodeHints(modified(nodeDigest(nodeManifest({ name: 'n1' })), ready))).toHaveLength(1);
    expect(nodeHints(modified(ready, ready))).toEqual([]);
    expect(nodeHints(modified(ready, nodeDigest(nodeManifest({ name: 'n1' }))))).toEqual([]);
  });
});

describe('Karpenter object hints', () => {
  it('ignores a NodePool update that keeps its generation', () => {
    const before = generationDigest({
      ...nodePoolManifest({ name: 'default' }),
      metadata: { name: 'default', generation: 3 },
    });
    const after = generationDigest({
      ...nodePoolManifest({ name: 'default' }),
      metadata: { name: 'default', generation: 4 },
    });
    const hints = generationHints('nodePoolChanged');
    expect(hints(modified(before, before))).toEqual([]);
    expect(hints(modified(before, after))).toEqual([
      { type: 'CapacityChanged', change: { reason: 'nodePoolChanged', name: 'default' } },
    ]);
  });

  it('ignores NodeClaim condition updates that keep every status', () => {
    const claim = (status: string, message: string) =>
      nodeClaimDigest({
        ...nodeClaimManifest({ name: 'c1' }),
        status: { conditions: [{ type: 'Initialized', status, message, lastTransitionTime: message }] },
      });
    expect(nodeClaimHints(modified(claim('False', 'a'), claim('False', 'b')))).toEqual([]);
    expect(nodeClaimHints(modified(claim('False', 'a'), claim('True', 'a')))).toHaveLength(1);
  });

  it('reads when a recorded command is due for validation, 15 s after it was decided', () => {
    const command = (decidedAt: unknown) => JSON.stringify({ id: 'x', candidates: ['c1'], decidedAt });
    const at = Date.parse('2026-11-28T01:00:00.000Z');
    expect(commandValidationDueAt(command('2026-11-28T01:00:00.000Z'))).toBe(at + 15_000);
    for (const bad of [undefined, '', '{', 'null', command(42), command('soon'), JSON.stringify({ id: 'x' })])
      expect(commandValidationDueAt(bad), String(bad)).toBeUndefined();
    const annotated = nodeClaimDigest({
      ...nodeClaimManifest({ name: 'c1' }),
      metadata: {
        name: 'c1',
        annotations: { 'podlift.dev/disruption-command': command('2026-11-28T01:00:00Z') },
      },
    });
    expect(annotated.validationDueAt).toBe(at + 15_000);
    expect(nodeClaimDigest(nodeClaimManifest({ name: 'c1' }))).not.toHaveProperty('validationDueAt');
    // Recording a command is not a capacity change by itself: the wake-up comes when it is due.
    expect(nodeClaimHints(modified(nodeClaimDigest(nodeClaimManifest({ name: 'c1' })), annotated))).toEqual(
      [],
    );
  });

  it("reads a NodePool's consolidateAfter: the CRD's 0s when absent, nothing for Never or a bad value", () => {
    const withAfter = (consolidateAfter?: unknown) => {
      const manifest = nodePoolManifest();
      const spec = manifest.spec as Record<string, unknown>;
      return {
        ...manifest,
        metadata: { ...manifest.metadata, generation: 3 },
        spec: {
          ...spec,
          disruption: {
            consolidationPolicy: 'WhenEmptyOrUnderutilized',
            ...(consolidateAfter !== undefined ? { consolidateAfter } : {}),
          },
        },
      };
    };
    expect(nodePoolDigest(withAfter('1m30s'))).toEqual({
      name: 'default',
      generation: 3,
      consolidateAfterMs: 90_000,
    });
    expect(nodePoolDigest(withAfter())).toMatchObject({ consolidateAfterMs: 0 });
    const { disruption: _, ...withoutDisruption } = withAfter().spec;
    expect(nodePoolDigest({ ...withAfter(), spec: withoutDisruption })).toMatchObject({
      consolidateAfterMs: 0,
    });
    // The API server prunes a null before defaulting (structural schemas), so null is 0s too.
    expect(nodePoolDigest(withAfter(null))).toMatchObject({ consolidateAfterMs: 0 });
    for (const none of ['Never', 'soon', 60])
      expect(nodePoolDigest(withAfter(none)), String(none)).not.toHaveProperty('consolidateAfterMs');
  });

  it('reads since when a NodeClaim is quiet: its last pod event, else its initialization, and its NodePool', () => {
    const initializedAt = '2026-11-28T01:00:00Z';
    const claim = (status: Record<string, unknown>) => ({
      ...nodeClaimManifest({ name: 'c1', nodePool: 'gpu' }),
      status,
    });
    const initialized = { type: 'Initialized', status: 'True', lastTransitionTime: initializedAt };
    expect(nodeClaimDigest(claim({ conditions: [initialized] }))).toMatchObject({
      nodePool: 'gpu',
      quietSince: Date.parse(initializedAt),
    });
    expect(
      nodeClaimDigest(claim({ conditions: [initialized], lastPodEventTime: '2026-11-28T01:05:00Z' }))
        .quietSince,
    ).toBe(Date.parse('2026-11-28T01:05:00Z'));
    for (const status of [
      {},
      { lastPodEventTime: '2026-11-28T01:05:00Z', conditions: [{ ...initialized, status: 'False' }] },
      { conditions: [{ type: 'Initialized', status: 'True' }] },
      { conditions: [initialized], lastPodEventTime: 'yesterday' },
    ])
      expect(nodeClaimDigest(claim(status)), JSON.stringify(status)).not.toHaveProperty('quietSince');
    const { labels: _, ...unlabelled } = nodeClaimManifest({ name: 'c1' }).metadata;
    expect(
      nodeClaimDigest({ ...nodeClaimManifest({ name: 'c1' }), metadata: unlabelled }),
    ).not.toHaveProperty('nodePool');
    // Pod events are not hints by themselves: the wake-up comes when consolidateAfter is up.
    expect(
      nodeClaimHints(
        modified(
          nodeClaimDigest(claim({ conditions: [initialized] })),
          nodeClaimDigest(claim({ conditions: [initialized], lastPodEventTime: '2026-11-28T01:05:00Z' })),
        ),
      ),
    ).toEqual([]);
  });
});
