import { loadBundledCatalog } from '../../shared/core/catalog/bundled';
import { nodePoolTotals } from '../../shared/core/disruption/balanced';
import { disruptionCandidates } from '../../shared/core/disruption/candidates';
import { globalConsolidation } from '../../shared/core/disruption/global-consolidation';
import type { Condition, NodeClaim } from '../../shared/core/model/nodeclaim';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { StateNode } from '../../shared/core/state/cluster-state';
import { nodeClaim, nodeClass, nodePool, pod, stateNode } from '../../sim/world/builders';

/**
 * `npx tsx bench/disruption/global-consolidation.ts`: what the `GlobalConsolidation` gate adds to
 * a disruption run at 1,000 nodes / 10,000 pods (issue 23's ≤ 2 s and ≤ 512 MB). It runs after
 * emptiness and drift, before Karpenter's consolidation, on the candidates the Underutilized
 * budget lets go (10 % of 1,000: 100), looks closely at 11 of them with at most 40 scheduling
 * runs and at all 100 by a binary search; this times that search alone — its CPU, the heap in use
 * after it and the process's peak RSS — on two clusters of on-demand m5.2xlarge: one under-used (10 pods a node, about 58 % of its CPU: sets move onto
 * the others, the largest is taken) and one packed (16 pods a node, 94 % of its CPU: every set
 * is planned onto the others' last 0.5 cpu and new small nodes for its 1-cpu pods, the heaviest
 * runs of the search). Cold is the first search of a process (the scheduler's caches empty),
 * warm the second. The last rows are the search past the budget alone (global-consolidation.ts
 * `phasedStep`), which a run adds when no step within the budget moves. In a disruption run the
 * search also stops at the run's time budget.
 */

const NOW = Date.UTC(2026, 0, 1);
const NODES = 1_000;
const ELIGIBLE = 100;
const CPU = ['100m', '250m', '500m', '1'];
const MEMORY = ['128Mi', '256Mi', '512Mi', '1Gi'];
const condition = (type: string): Condition => ({
  type,
  status: 'True',
  reason: type,
  message: '',
  lastTransitionTime: new Date(NOW - 3_600_000).toISOString(),
});

/** A cluster of {@link NODES} initialized, Consolidatable m5.2xlarge with `podsPerNode` pods each. */
function cluster(podsPerNode: number): ClusterSnapshot {
  const members: [StateNode, NodeClaim][] = [];
  for (let n = 0; n < NODES; n++) {
    const name = `node-${n}`;
    const providerID = `aws:///us-east-1a/i-${String(n).padStart(17, '0')}`;
    const pods = Array.from({ length: podsPerNode }, (_, p) => {
      const i = n * podsPerNode + p;
      return pod({
        name: `app-${i}`,
        cpu: CPU[i % CPU.length],
        memory: MEMORY[(i >> 2) % MEMORY.length],
        ownerKind: 'ReplicaSet',
        nodeName: name,
      });
    });
    members.push([
      stateNode({
        name,
        nodePool: 'default',
        allocatable: { cpu: '7910m', memory: '30Gi', pods: 58 },
        pods,
        lifecycle: { providerID, ready: true },
      }),
      nodeClaim({
        name: `claim-${n}`,
        uid: `uid-${n}`,
        creationTimestamp: new Date(NOW - 3_600_000).toISOString(),
        labels: {
          'karpenter.sh/capacity-type': 'on-demand',
          'node.kubernetes.io/instance-type': 'm5.2xlarge',
          'topology.kubernetes.io/zone': 'us-east-1a',
        },
        annotations: { 'podlift.dev/hourly-price': '0.384' },
        status: { providerID, conditions: [condition('Initialized'), condition('Consolidatable')] },
      }),
    ]);
  }
  return {
    now: NOW,
    pendingPods: [],
    nodes: members.map(([n]) => n),
    nodeClaims: members.map(([, c]) => c),
    daemonSets: [],
    podDisruptionBudgets: [],
    nodePools: [
      nodePool({
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
      }),
    ],
    nodeClasses: [nodeClass()],
    nodeClassStatus: new Map(),
    catalog: loadBundledCatalog('us-east-1'),
    unavailableOfferings: new Set(),
    invalid: [],
    warnings: [],
  };
}

/**
 * One search: its CPU seconds, the heap in use after it (MB, the cluster included) and what it
 * decided. `allowed` of the first {@link ELIGIBLE} candidates are within the budget and the rest
 * past it, for the search again past the budget (`phasedStep`) when none within it moves.
 */
function search(
  snapshot: ClusterSnapshot,
  allowed = ELIGIBLE,
): { cpu: number; heapMB: number; step: string } {
  const candidates = disruptionCandidates(snapshot).slice(0, ELIGIBLE);
  const totals = nodePoolTotals(snapshot);
  const started = process.cpuUsage();
  const step = globalConsolidation(candidates.slice(0, allowed), snapshot, totals, undefined, candidates);
  const used = process.cpuUsage(started);
  return {
    cpu: (used.user + used.system) / 1e6,
    heapMB: process.memoryUsage().heapUsed / 2 ** 20,
    step: step
      ? `${step.candidates.length} nodes, ${step.consolidation.action}, saves $${step.consolidation.savings.toFixed(3)}/h`
      : 'no step',
  };
}

const rows: string[] = ['cluster | run | search CPU | heap in use after | step'];
for (const [name, podsPerNode] of [
  ['1,000 nodes / 10,000 pods, under-used', 10],
  ['1,000 nodes / 16,000 pods, packed', 16],
] as const) {
  const snapshot = cluster(podsPerNode);
  for (const run of ['cold', 'warm']) {
    const r = search(snapshot);
    rows.push(`${name} | ${run} | ${r.cpu.toFixed(2)} s | ${r.heapMB.toFixed(0)} MB | ${r.step}`);
  }
}
// No candidate within the budget: the search past it runs whole and can take no step (a first
// phase needs one the budget allows), the most the second search adds to a run.
const packed = cluster(16);
for (const run of ['cold', 'warm']) {
  const r = search(packed, 0);
  rows.push(
    `1,000 nodes / 16,000 pods, packed, past the budget only | ${run} | ${r.cpu.toFixed(2)} s | ${r.heapMB.toFixed(0)} MB | ${r.step}`,
  );
}
rows.push(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
process.stdout.write(`${rows.join('\n')}\n`);
