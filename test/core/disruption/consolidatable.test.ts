import { describe, expect, it } from 'vitest';
import {
  CONSOLIDATABLE,
  consolidatableChanges,
  POD_EVENT_DEDUPE_MS,
  podEventsFingerprint,
  underConsolidateAfter,
} from '../../../shared/core/disruption/consolidatable';
import type { Condition, NodeClaim } from '../../../shared/core/model/nodeclaim';
import type { Pod } from '../../../shared/core/model/pod';
import type { StateNode } from '../../../shared/core/state/cluster-state';
import { nodeClaim, nodePool, pod, stateNode } from '../../../sim/world/builders';
import { snapshotOf, T0 } from './snapshot';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const initializedAt = (ms: number): Condition => ({
  type: 'Initialized',
  status: 'True',
  reason: 'Initialized',
  message: '',
  lastTransitionTime: iso(ms),
});
const consolidatable: Condition = { ...initializedAt(T0), type: CONSOLIDATABLE, reason: CONSOLIDATABLE };
const web = (name: string) => pod({ name, cpu: '100m', ownerKind: 'ReplicaSet' });

interface MemberOptions {
  readonly pods?: readonly Pod[];
  readonly conditions?: readonly Condition[];
  readonly lastPodEventTime?: number;
  readonly fingerprint?: string;
  readonly pool?: string;
  readonly deleting?: boolean;
}

function member(o: MemberOptions = {}): [StateNode, NodeClaim] {
  const providerID = 'aws:///us-east-1a/i-00000000000000001';
  const node = stateNode({
    name: 'n',
    nodePool: 'default',
    pods: (o.pods ?? []).map((p) => ({ ...p, nodeName: 'n' })),
    lifecycle: { providerID, ready: true },
  });
  const claim = nodeClaim({
    name: 'c',
    labels: { 'karpenter.sh/nodepool': o.pool ?? 'default' },
    annotations: o.fingerprint !== undefined ? { 'podlift.dev/pod-events': o.fingerprint } : {},
    status: {
      providerID,
      conditions: o.conditions ?? [initializedAt(T0)],
      ...(o.lastPodEventTime !== undefined ? { lastPodEventTime: iso(o.lastPodEventTime) } : {}),
    },
  });
  return [node, o.deleting ? { ...claim, deletionTimestamp: iso(T0) } : claim];
}

const changes = (m: [StateNode, NodeClaim], consolidateAfter: string, now: number) =>
  consolidatableChanges(snapshotOf([m], { nodePools: [nodePool({ consolidateAfter })] }), now);

describe('podEventsFingerprint', () => {
  it('changes when a pod comes, goes or starts terminating, not for DaemonSet pods or order', () => {
    const a = web('a');
    const b = web('b');
    const base = podEventsFingerprint([a, b]);
    expect(podEventsFingerprint([b, a])).toBe(base);
    expect(podEventsFingerprint([a, b, pod({ name: 'ds', ownerKind: 'DaemonSet' })])).toBe(base);
    expect(podEventsFingerprint([a])).not.toBe(base);
    expect(podEventsFingerprint([a, { ...b, deleting: true }])).not.toBe(base);
    expect(podEventsFingerprint([])).toBe('0-811c9dc5');
    expect(podEventsFingerprint([a])).toMatch(/^1-[0-9a-f]+$/);
    expect(podEventsFingerprint([{ ...a, deleting: true }])).not.toBe(
      podEventsFingerprint([{ ...b, deleting: true }]),
    );
    const uid = (u: string) => ({ ...a, uid: u });
    expect(podEventsFingerprint([uid('ab'), uid('c')])).not.toBe(podEventsFingerprint([uid('a'), uid('bc')]));
  });
});

describe('underConsolidateAfter', () => {
  // pkg/utils/disruption IsUnderConsolidateAfter.
  const claim = (lastPodEventTime?: number) => member({ lastPodEventTime })[1];
  it('counts from lastPodEventTime, else from initialization', () => {
    expect(underConsolidateAfter(claim(), 60_000, T0 + 59_999)).toBe(true);
    expect(underConsolidateAfter(claim(), 60_000, T0 + 60_000)).toBe(false);
    expect(underConsolidateAfter(claim(T0 + 30_000), 60_000, T0 + 60_000)).toBe(true);
    expect(underConsolidateAfter(claim(T0 + 30_000), 60_000, T0 + 90_000)).toBe(false);
  });
  it('is never under Never or 0, nor when not initialized', () => {
    expect(underConsolidateAfter(claim(), undefined, T0)).toBe(false);
    expect(underConsolidateAfter(claim(), 0, T0)).toBe(false);
    expect(underConsolidateAfter({ status: { conditions: [] } }, 60_000, T0)).toBe(false);
    const notYet = { ...initializedAt(T0), status: 'False' as const };
    expect(underConsolidateAfter({ status: { conditions: [notYet] } }, 60_000, T0)).toBe(false);
    expect(underConsolidateAfter({ status: { conditions: [consolidatable] } }, 60_000, T0)).toBe(false);
    // A lastPodEventTime ahead of the clock (skew) holds nothing back when consolidateAfter is 0.
    expect(underConsolidateAfter(claim(T0 + 5_000), 0, T0)).toBe(false);
  });
});

describe('consolidatableChanges', () => {
  // nodeclaim/disruption/consolidation_test.go
  it('marks a NodeClaim Consolidatable consolidateAfter after it was initialized', () => {
    expect(changes(member(), '1m', T0 + 59_000)).toEqual([{ nodeClaim: 'c', podEvents: '0-811c9dc5' }]);
    expect(changes(member({ fingerprint: '0-811c9dc5' }), '1m', T0 + 60_000)).toEqual([
      { nodeClaim: 'c', status: { conditions: [{ type: CONSOLIDATABLE, status: 'True' }] } },
    ]);
  });

  it('removes the condition when the last pod event is too recent', () => {
    const m = member({
      conditions: [initializedAt(T0), consolidatable],
      lastPodEventTime: T0 + 50_000,
      fingerprint: '0-811c9dc5',
    });
    expect(changes(m, '1m', T0 + 100_000)).toEqual([
      { nodeClaim: 'c', status: { removeConditions: [CONSOLIDATABLE] } },
    ]);
  });

  it('removes the condition when consolidateAfter is Never, and when not initialized', () => {
    const m = member({ conditions: [initializedAt(T0), consolidatable], fingerprint: '0-811c9dc5' });
    expect(changes(m, 'Never', T0 + 3_600_000)).toEqual([
      { nodeClaim: 'c', status: { removeConditions: [CONSOLIDATABLE] } },
    ]);
    const notYet = { ...initializedAt(T0), status: 'False' as const };
    const starting = member({ conditions: [notYet, consolidatable], fingerprint: '0-811c9dc5' });
    expect(changes(starting, '0s', T0)).toEqual([
      { nodeClaim: 'c', status: { removeConditions: [CONSOLIDATABLE] } },
    ]);
  });

  it('writes nothing when nothing changed', () => {
    const m = member({ conditions: [initializedAt(T0), consolidatable], fingerprint: '0-811c9dc5' });
    expect(changes(m, '1m', T0 + 120_000)).toEqual([]);
  });

  // podevents/suite_test.go "should set the nodeclaim lastPodEvent"
  it('stamps lastPodEventTime when the pods changed, and the window starts again', () => {
    const before = podEventsFingerprint([web('a')]);
    const m = member({ conditions: [initializedAt(T0), consolidatable], fingerprint: before });
    const now = T0 + 3_600_000;
    expect(changes(m, '1m', now)).toEqual([
      {
        nodeClaim: 'c',
        status: { lastPodEventTime: iso(now), removeConditions: [CONSOLIDATABLE] },
        podEvents: '0-811c9dc5',
      },
    ]);
  });

  it('counts pods first seen on a node as an event, an empty node first seen as none', () => {
    const now = T0 + 3_600_000;
    const busy = member({ pods: [web('a')] });
    expect(changes(busy, '1m', now)[0]).toMatchObject({ status: { lastPodEventTime: iso(now) } });
    expect(changes(member(), '1m', now)[0].status).toEqual({
      conditions: [{ type: CONSOLIDATABLE, status: 'True' }],
    });
  });

  // podevents/suite_test.go "should only set the nodeclaim lastPodEvent once within the dedupe timeframe"
  it('keeps a lastPodEventTime younger than the dedupe window, and records the new pods', () => {
    const last = T0 + 100_000;
    const m = member({ pods: [web('a')], fingerprint: '0-811c9dc5', lastPodEventTime: last });
    expect(changes(m, '0s', last + POD_EVENT_DEDUPE_MS - 1)).toEqual([
      {
        nodeClaim: 'c',
        status: { conditions: [{ type: CONSOLIDATABLE, status: 'True' }] },
        podEvents: podEventsFingerprint([web('a')]),
      },
    ]);
    expect(changes(m, '0s', last + POD_EVENT_DEDUPE_MS)[0].status?.lastPodEventTime).toBe(
      iso(last + POD_EVENT_DEDUPE_MS),
    );
  });

  it('leaves NodeClaims being deleted, of no podlift NodePool, or without a Node', () => {
    expect(changes(member({ deleting: true }), '0s', T0)).toEqual([]);
    expect(changes(member({ pool: 'other' }), '0s', T0)).toEqual([]);
    const [, claim] = member({ fingerprint: 'x' });
    expect(
      consolidatableChanges(snapshotOf([], { nodeClaims: [claim], nodePools: [nodePool()] }), T0 + 1),
    ).toStrictEqual([{ nodeClaim: 'c', status: { conditions: [{ type: CONSOLIDATABLE, status: 'True' }] } }]);
  });
});
