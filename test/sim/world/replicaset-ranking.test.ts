import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../sim/fakes/kube';
import {
  deletesFirst,
  logarithmicRankDiff,
  POD_DELETION_COST,
  podDeletionCost,
  podsToDelete,
  rankedByRelatedPodsOnSameNode,
} from '../../../sim/world/replicaset-ranking';

// The cases of kubernetes pkg/controller/controller_utils_test.go `TestSortingActivePodsWithRanks`
// (PodDeletionCost and LogarithmicScaleDown on, their defaults), with its pod builder: a pod
// not Ready has no conditions; a Ready one has a PodReady condition since `readySince`.

const now = Date.UTC(2026, 5, 1, 12);
const HOUR = 3_600_000;
const then1Month = Date.UTC(2026, 4, 1, 12);
const [then2Hours, then5Hours, then8Hours] = [now - 2 * HOUR, now - 5 * HOUR, now - 8 * HOUR];
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

interface PodOptions {
  readonly node?: string;
  readonly phase?: string;
  readonly ready?: boolean;
  readonly readySince?: number;
  readonly created?: number;
  readonly cost?: string;
  readonly uid?: string;
  readonly deleting?: boolean;
}

function pod(name: string, o: PodOptions = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(o.uid ? { uid: o.uid } : {}),
      ...(o.created !== undefined ? { creationTimestamp: iso(o.created) } : {}),
      ...(o.cost !== undefined ? { annotations: { [POD_DELETION_COST]: o.cost } } : {}),
      ...(o.deleting ? { deletionTimestamp: iso(now) } : {}),
    },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? 'Running',
      ...(o.ready
        ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(o.readySince) }] }
        : {}),
    },
  };
}

const unscheduledPod = pod('unscheduled', { phase: 'Pending' });
const scheduledPendingPod = pod('pending', { node: 'node', phase: 'Pending' });
const unknownPhasePod = pod('unknown-phase', { node: 'node', phase: 'Unknown' });
const runningNotReadyPod = pod('not-ready', { node: 'node' });
const runningReadyNoLastTransitionTimePod = pod('ready-no-ltt', { node: 'node', ready: true });
const runningReadyNow = pod('ready-now', { node: 'node', ready: true, readySince: now, created: now });
const runningReadyThen = pod('ready-then', {
  node: 'node',
  ready: true,
  readySince: then1Month,
  created: then1Month,
});
const runningReadyNowCreatedThen = pod('ready-now-created-then', {
  node: 'node',
  ready: true,
  readySince: now,
  created: then1Month,
});
const lowPodDeletionCost = pod('low-deletion-cost', {
  node: 'node',
  ready: true,
  readySince: now,
  created: then1Month,
  cost: '10',
});
const highPodDeletionCost = pod('high-deletion-cost', {
  node: 'node',
  ready: true,
  readySince: now,
  created: then1Month,
  cost: '100',
});
const unscheduled5Hours = pod('unscheduled-5-hours', { phase: 'Pending', created: then5Hours });
const unscheduled8Hours = pod('unscheduled-8-hours', { phase: 'Pending', created: then8Hours });
const ready2Hours = pod('ready-2-hours', { ready: true, readySince: then2Hours, created: then1Month });
const ready5Hours = pod('ready-5-hours', { ready: true, readySince: then5Hours, created: then1Month });
const ready8Hours = pod('ready-8-hours', { ready: true, readySince: then8Hours, created: then1Month });

describe('ActivePodsWithRanks.Less (deletesFirst)', () => {
  const equal: [KubeObject, KubeObject][] = [
    [unscheduledPod, unscheduledPod],
    [scheduledPendingPod, scheduledPendingPod],
    [unknownPhasePod, unknownPhasePod],
    [runningNotReadyPod, runningNotReadyPod],
    [runningReadyNowCreatedThen, runningReadyNowCreatedThen],
    [runningReadyNow, runningReadyNow],
    [runningReadyThen, runningReadyThen],
    // Same log2 bucket of age, no UIDs: neither goes first.
    [unscheduled5Hours, unscheduled8Hours],
    [ready5Hours, ready8Hours],
  ];
  it.each(equal.map(([a, b]) => [a.metadata.name, b.metadata.name, a, b]))(
    'ranks %s and %s equal',
    (_a, _b, a, b) => {
      const [x, y] = [
        { pod: a as KubeObject, rank: 1 },
        { pod: b as KubeObject, rank: 1 },
      ];
      expect(deletesFirst(x, y, now)).toBe(false);
      expect(deletesFirst(y, x, now)).toBe(false);
    },
  );

  // [lesser, its rank, greater, its rank]: the lesser is deleted first. Upstream's restart-count
  // cases are left out (the simulator's containers never restart), as are those with a gate off.
  const ordered: [KubeObject, number, KubeObject, number][] = [
    [unscheduledPod, 1, scheduledPendingPod, 2],
    [unscheduledPod, 2, scheduledPendingPod, 1],
    [scheduledPendingPod, 1, unknownPhasePod, 2],
    [unknownPhasePod, 1, runningNotReadyPod, 2],
    [runningNotReadyPod, 1, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNoLastTransitionTimePod, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNow, 1, runningReadyThen, 1],
    [runningReadyNow, 2, runningReadyThen, 1],
    [runningReadyNow, 1, runningReadyNowCreatedThen, 1],
    [runningReadyNowCreatedThen, 2, runningReadyNow, 1],
    [lowPodDeletionCost, 2, highPodDeletionCost, 1],
    [ready2Hours, 1, ready5Hours, 1],
  ];
  it.each(ordered.map(([a, ra, b, rb]) => [a.metadata.name, ra, b.metadata.name, rb, a, b]))(
    'deletes %s (rank %d) before %s (rank %d)',
    (_a, ra, _b, rb, a, b) => {
      const lesser = { pod: a as KubeObject, rank: ra as number };
      const greater = { pod: b as KubeObject, rank: rb as number };
      expect(deletesFirst(lesser, greater, now)).toBe(true);
      expect(deletesFirst(greater, lesser, now)).toBe(false);
    },
  );

  it('breaks a tie in the same log2 bucket by the lower UID, for ready time and creation time', () => {
    const readyA = pod('a', { ready: true, readySince: then8Hours, uid: 'a-uid' });
    const readyB = pod('b', { ready: true, readySince: then5Hours, uid: 'b-uid' });
    // The pod Ready for longer goes first: 5 h and 8 h share bucket 44 and its UID is lower.
    expect(deletesFirst({ pod: readyA, rank: 1 }, { pod: readyB, rank: 1 }, now)).toBe(true);
    expect(deletesFirst({ pod: readyB, rank: 1 }, { pod: readyA, rank: 1 }, now)).toBe(false);
    const newer = pod('newer', { created: then5Hours, uid: 'z' });
    const older = pod('older', { created: then8Hours, uid: 'y' });
    expect(deletesFirst({ pod: older, rank: 1 }, { pod: newer, rank: 1 }, now)).toBe(true);
    // Out of the bucket the newer goes first whatever the UIDs.
    const oldest = pod('oldest', { created: then1Month, uid: 'a' });
    expect(deletesFirst({ pod: newer, rank: 1 }, { pod: oldest, rank: 1 }, now)).toBe(true);
  });

  it('decides by ready time before creation time, by creation time for pods not Ready', () => {
    const readyLongCreatedNew = pod('a', { ready: true, readySince: then1Month, created: now - 1000 });
    const readyNewCreatedOld = pod('b', { ready: true, readySince: then2Hours, created: then1Month });
    expect(
      deletesFirst({ pod: readyNewCreatedOld, rank: 1 }, { pod: readyLongCreatedNew, rank: 1 }, now),
    ).toBe(true);
    const notReadyNew = pod('c', { phase: 'Running', created: then2Hours });
    const notReadyOld = pod('d', { phase: 'Running', created: then1Month });
    expect(deletesFirst({ pod: notReadyNew, rank: 1 }, { pod: notReadyOld, rank: 1 }, now)).toBe(true);
  });

  it('ranks a phase it does not list as Pending', () => {
    const odd = pod('odd', { node: 'node', phase: '' });
    expect(deletesFirst({ pod: odd, rank: 1 }, { pod: unknownPhasePod, rank: 1 }, now)).toBe(true);
    expect(deletesFirst({ pod: odd, rank: 1 }, { pod: scheduledPendingPod, rank: 1 }, now)).toBe(false);
  });
});

describe('logarithmicRankDiff', () => {
  it('compares floor(log2) of the ages in nanoseconds, a time not in the past as bucket -1', () => {
    // 1 s = 1e9 ns → bucket 29; 2 s → 30; 1.5 s → 30.
    expect(logarithmicRankDiff(now - 1000, now - 2000, now)).toBe(-1);
    expect(logarithmicRankDiff(now - 1500, now - 2000, now)).toBe(0);
    expect(logarithmicRankDiff(now, now - 1000, now)).toBe(-1 - 29);
    expect(logarithmicRankDiff(now + 5000, now, now)).toBe(0);
  });
});

describe('podDeletionCost (GetDeletionCostFromPodAnnotations)', () => {
  it.each([
    [undefined, 0],
    ['0', 0],
    ['10', 10],
    ['-3', -3],
    ['-007', -7],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
    ['2147483648', 0],
    ['-2147483649', 0],
    ['+10', 0],
    ['008', 0],
    ['', 0],
    ['-', 0],
    ['1.5', 0],
    ['1e3', 0],
    [' 1', 0],
    ['abc', 0],
  ])('reads %j as %d', (value, cost) => {
    expect(podDeletionCost(value === undefined ? {} : { [POD_DELETION_COST]: value })).toBe(cost);
  });

  it('is 0 without annotations', () => {
    expect(podDeletionCost(undefined)).toBe(0);
  });
});

describe('getPodsRankedByRelatedPodsOnSameNode', () => {
  it('counts the active related pods on each node, unassigned ones under the node ""', () => {
    const pods = [pod('a1', { node: 'a' }), pod('b1', { node: 'b' }), pod('u1', { phase: 'Pending' })];
    const related = [
      ...pods,
      pod('a2', { node: 'a' }),
      pod('a-done', { node: 'a', phase: 'Succeeded' }),
      pod('a-failed', { node: 'a', phase: 'Failed' }),
      pod('a-deleting', { node: 'a', deleting: true }),
      pod('u2', { phase: 'Pending' }),
    ];
    expect(rankedByRelatedPodsOnSameNode(pods, related).map((r) => r.rank)).toEqual([2, 1, 2]);
  });
});

describe('getPodsToDelete (podsToDelete)', () => {
  const onNode = (name: string, node: string, readySince: number) =>
    pod(name, { node, ready: true, readySince, created: then1Month, uid: name });

  it('takes the doubled-up pods first, from the node holding the most related pods', () => {
    const pods = [
      onNode('a1', 'a', then1Month),
      onNode('a2', 'a', then1Month),
      onNode('a3', 'a', then1Month),
      onNode('b1', 'b', then2Hours),
      onNode('c1', 'c', then2Hours),
    ];
    expect(podsToDelete(pods, pods, 2, now).map((p) => p.metadata.name)).toEqual(['a1', 'a2']);
  });

  it('keeps the input order when it deletes them all, as the real one skips the sort', () => {
    const pods = [onNode('b', 'a', then1Month), onNode('a', 'a', then2Hours)];
    expect(podsToDelete(pods, pods, 2, now).map((p) => p.metadata.name)).toEqual(['b', 'a']);
    expect(podsToDelete(pods, pods, 1, now).map((p) => p.metadata.name)).toEqual(['a']);
  });
});
