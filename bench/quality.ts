import { binTypes, podClasses } from '../shared/core/bound/bound-input';
import { type ConfigurationBound, configurationBound } from '../shared/core/bound/config-lp';
import type { Catalog } from '../shared/core/catalog/instance-type';
import type { EC2NodeClass } from '../shared/core/model/ec2nodeclass';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_GENERATION,
  LABEL_OS,
} from '../shared/core/model/labels';
import type { NodePool } from '../shared/core/model/nodepool';
import type { Pod } from '../shared/core/model/pod';
import { schedulingInputFor } from '../shared/core/scheduling/plan-capacity';
import { schedule } from '../shared/core/scheduling/scheduler';
import type { SchedulingResult } from '../shared/core/scheduling/types';
import type { DaemonSet } from '../shared/core/state/cluster-state';
import { loadHighsSolver } from '../shared/runtime/highs-solver';
import { nodePool, pod } from '../sim/world/builders';
import { karpenterDecision, type ReferencePlan } from './karpenter-reference';
import { formatTable, num } from './table';
import { workload } from './workload';

/**
 * Plan cost on the workloads of the cheapest-plan goal: podlift's plan against the
 * configuration-LP lower bound (shared/core/bound/config-lp.ts) and against Karpenter's decision before
 * consolidation (karpenter-reference.ts), all on-demand in the bench region.
 */

/** One workload: pods, DaemonSets and the NodePool they are planned with. */
export interface QualityWorkload {
  readonly name: string;
  readonly pods: readonly Pod[];
  readonly daemonSets: readonly DaemonSet[];
  readonly nodePool: NodePool;
  /** Whether pods carry topology rules: the bound and Karpenter's reference ignore them. */
  readonly topology: boolean;
}

const LINUX_ON_DEMAND = [
  { key: LABEL_OS, operator: 'In' as const, values: ['linux'] },
  { key: LABEL_CAPACITY_TYPE, operator: 'In' as const, values: ['on-demand'] },
];

function onDemandPool(
  extra: NodePool['template']['requirements'] = [],
  limits?: Record<string, string>,
): NodePool {
  return nodePool({ requirements: [...LINUX_ON_DEMAND, ...extra], ...(limits ? { limits } : {}) });
}

function repeat(count: number, prefix: string, cpu: string, memory?: string): Pod[] {
  return Array.from({ length: count }, (_, i) =>
    pod({ name: `${prefix}-${i}`, cpu, ...(memory ? { memory } : {}) }),
  );
}

/** The DaemonSet of the "with a DaemonSet" workload: 200m / 256Mi on every node. */
function daemonSet(): DaemonSet {
  return {
    namespace: 'kube-system',
    name: 'agent',
    pod: pod({ name: 'agent', cpu: '200m', memory: '256Mi' }),
  };
}

/** The workloads of the cheapest-plan table, plus Karpenter's benchmark mix with topology. */
export function qualityWorkloads(): QualityWorkload[] {
  const plain = (n: number) => workload('plain', n);
  const eight = [
    ['100m', '128Mi'],
    ['250m', '512Mi'],
    ['500m', '1Gi'],
    ['750m', '1536Mi'],
    ['1', '2Gi'],
    ['2', '4Gi'],
    ['3', '6Gi'],
    ['4', '8Gi'],
  ].flatMap(([cpu, memory], i) => repeat(250, `deploy${i}`, cpu, memory));
  return [
    { name: 'benchmark mix', pods: plain(500), daemonSets: [], nodePool: onDemandPool(), topology: false },
    { name: 'benchmark mix', pods: plain(5000), daemonSets: [], nodePool: onDemandPool(), topology: false },
    {
      name: 'mix + DaemonSet 200m/256Mi',
      pods: plain(500),
      daemonSets: [daemonSet()],
      nodePool: onDemandPool(),
      topology: false,
    },
    {
      name: 'mix, c/m/r gen > 5, limits',
      pods: plain(500),
      daemonSets: [],
      nodePool: onDemandPool(
        [
          { key: LABEL_INSTANCE_CATEGORY, operator: 'In', values: ['c', 'm', 'r'] },
          { key: LABEL_INSTANCE_GENERATION, operator: 'Gt', values: ['5'] },
        ],
        { cpu: '1000', memory: '4000Gi' },
      ),
      topology: false,
    },
    {
      name: 'memory-heavy',
      pods: [...repeat(300, 'mem', '500m', '6Gi'), ...repeat(100, 'big-mem', '2', '16Gi')],
      daemonSets: [],
      nodePool: onDemandPool(),
      topology: false,
    },
    { name: 'eight Deployments', pods: eight, daemonSets: [], nodePool: onDemandPool(), topology: false },
    {
      name: 'inflate 10 × 1 cpu',
      pods: repeat(10, 'inflate', '1'),
      daemonSets: [],
      nodePool: onDemandPool(),
      topology: false,
    },
    {
      name: 'big 20 × 14 cpu/28Gi',
      pods: repeat(20, 'big', '14', '28Gi'),
      daemonSets: [],
      nodePool: onDemandPool(),
      topology: false,
    },
    {
      name: '3 × 1.5 cpu/3Gi',
      pods: repeat(3, 'small', '1500m', '3Gi'),
      daemonSets: [],
      nodePool: onDemandPool(),
      topology: false,
    },
    {
      name: 'benchmark mix, topology',
      pods: workload('karpenter', 500),
      daemonSets: [],
      nodePool: onDemandPool(),
      topology: true,
    },
    {
      // The same pods with every rule but hostname anti-affinity removed: the one rule the
      // bound knows, so the ratio says how well podlift plans around it.
      name: 'mix, anti-affinity only',
      pods: workload('karpenter', 500).map((p) => ({
        ...p,
        topologySpread: [],
        podAffinity: [],
        preferredPodAffinity: [],
        preferredPodAntiAffinity: [],
      })),
      daemonSets: [],
      nodePool: onDemandPool(),
      topology: true,
    },
  ];
}

/** What one workload's row says. */
export interface QualityRow {
  readonly name: string;
  readonly pods: number;
  readonly unschedulable: number;
  readonly podliftCost: number;
  readonly podliftNodes: number;
  readonly podliftTop: string;
  readonly planMs: number;
  readonly topology: boolean;
  readonly bound: ConfigurationBound;
  /** Wall milliseconds the bound took. */
  readonly boundMs: number;
  readonly karpenter?: ReferencePlan & { readonly top: string };
}

/** The largest shares of cost by instance type, as "t4g.medium 38%, …". */
function topTypes(nodes: readonly { instanceType: string; price: number }[], count = 3): string {
  const byType = new Map<string, number>();
  let total = 0;
  for (const n of nodes) {
    byType.set(n.instanceType, (byType.get(n.instanceType) ?? 0) + n.price);
    total += n.price;
  }
  return [...byType.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, cost]) => `${name} ${Math.round((100 * cost) / total)}%`)
    .join(', ');
}

function scheduledPods(result: SchedulingResult): Pod[] {
  return result.nodeClaims.flatMap((c) => c.pods as Pod[]);
}

/** Plans, bounds and compares one workload. */
export async function measureQuality(
  w: QualityWorkload,
  catalog: Catalog,
  nodeClass: EC2NodeClass,
): Promise<QualityRow> {
  const input = schedulingInputFor(
    { pods: w.pods, daemonSets: w.daemonSets, nodes: [], nodePools: [w.nodePool], nodeClasses: [nodeClass] },
    catalog,
  );
  schedule(input); // warm-up: the figure is the plan, not the JIT
  const start = performance.now();
  const result = schedule(input);
  const planMs = performance.now() - start;
  const boundStart = performance.now();
  const bound = configurationBound(
    await loadHighsSolver(),
    binTypes(input),
    podClasses(scheduledPods(result)),
  );
  const boundMs = performance.now() - boundStart;
  const karpenter = w.topology ? undefined : karpenterDecision(input);
  return {
    name: w.name,
    pods: w.pods.length,
    unschedulable: result.unschedulable.length,
    podliftCost: result.nodeClaims.reduce((s, c) => s + c.price, 0),
    podliftNodes: result.nodeClaims.length,
    podliftTop: topTypes(result.nodeClaims),
    planMs,
    topology: w.topology,
    bound,
    boundMs,
    ...(karpenter ? { karpenter: { ...karpenter, top: topTypes(karpenter.nodes) } } : {}),
  };
}

/** The quality table as text. */
export function formatQuality(rows: readonly QualityRow[]): string {
  const table = formatTable(
    [
      'workload',
      'pods',
      'podlift $/h',
      'bound $/h',
      'podlift ÷ bound',
      'Karpenter $/h',
      'podlift ÷ Karpenter',
      'podlift nodes: top types by cost',
      'Karpenter nodes: top types by cost',
      'plan ms',
      'bound s',
    ],
    rows.map((r) => [
      r.name + (r.topology ? ' *' : ''),
      num(r.pods) + (r.unschedulable > 0 ? ` (${r.unschedulable} unsched)` : ''),
      num(r.podliftCost, 3),
      num(r.bound.cost, 3),
      num(r.podliftCost / r.bound.cost, 3),
      r.karpenter ? num(r.karpenter.costPerHour, 3) : '—',
      r.karpenter ? num(r.podliftCost / r.karpenter.costPerHour, 3) : '—',
      `${num(r.podliftNodes)}: ${r.podliftTop}`,
      r.karpenter ? `${num(r.karpenter.nodes.length)}: ${r.karpenter.top}` : '—',
      num(r.planMs),
      num(r.boundMs / 1000, 1),
    ]),
  );
  return [
    table,
    '',
    '  bound: configuration LP over one-node packings (column generation with HiGHS, Farley bound; shared/core/bound/config-lp.ts);',
    '  it knows pods are indivisible, max pods per node, DaemonSet overhead and that pods repelling each other by',
    '  hostname anti-affinity take a node each, not other topology rules (* = the workload has them, so it may sit',
    "  higher). Karpenter: Karpenter's decision before consolidation, re-implemented (karpenter-reference.ts), plain",
    '  pods only. plan ms: schedule() after one warm-up run.',
  ].join('\n');
}
