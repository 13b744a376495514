import { LABEL_HOSTNAME, LABEL_ZONE } from '../shared/core/model/labels';
import type { Pod } from '../shared/core/model/pod';
import { pod } from '../sim/world/builders';

/**
 * Pending pods for the benchmarks, generated deterministically from a seed. The shapes follow
 * Karpenter's own scheduling benchmark (kubernetes-sigs/karpenter
 * `pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go`: `makeDiversePods`,
 * `makeGenericPods`, `makeTopologySpreadPods`, `makePodAffinityPods`, `makePodAntiAffinityPods`),
 * with its value sets and its way of drawing labels and selectors.
 */

/** A random source returning floats in [0, 1). */
export type Random = () => number;

/** mulberry32: a tiny seeded PRNG, good enough to make benchmark inputs reproducible. */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Karpenter's `randomCPU`. */
const CPU_VALUES = ['100m', '250m', '500m', '1', '1500m'] as const;
/** Karpenter's `randomMemory`. */
const MEMORY_VALUES = ['100Mi', '256Mi', '512Mi', '1Gi', '2Gi', '4Gi'] as const;
/** Karpenter's `randomLabelValue`. */
const LABEL_VALUES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const;

function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)];
}

/** What the benchmark pods differ by; see {@link WorkloadShape}. */
export type PodKind =
  | 'plain'
  | 'zonal-spread'
  | 'hostname-spread'
  | 'zonal-affinity'
  | 'hostname-affinity'
  | 'hostname-anti-affinity';

/**
 * `karpenter`: `makeDiversePods` as upstream has it today: count/6 each of plain, zonal spread,
 * hostname spread, hostname affinity, zonal affinity and hostname anti-affinity, the remainder
 * plain. Labels and selectors are drawn independently, so a spread or affinity pod's selector
 * matches its own label only one time in seven (Karpenter's `randomLabels()` is called twice).
 *
 * `five`: one fifth each of plain, zonal spread, hostname spread, zonal affinity and hostname
 * anti-affinity, every pod's selector matching its own label (one label value drawn per pod).
 *
 * `plain`: plain pods only (`makeGenericPods`).
 */
export type WorkloadShape = 'karpenter' | 'five' | 'plain';

/** The shapes {@link workload} knows, for `--help` and argument checks. */
export const WORKLOAD_SHAPES: readonly WorkloadShape[] = ['karpenter', 'five', 'plain'];

const KARPENTER_KINDS: readonly PodKind[] = [
  'plain',
  'zonal-spread',
  'hostname-spread',
  'hostname-affinity',
  'zonal-affinity',
  'hostname-anti-affinity',
];

const FIVE_KINDS: readonly PodKind[] = [
  'plain',
  'zonal-spread',
  'hostname-spread',
  'zonal-affinity',
  'hostname-anti-affinity',
];

/** The kind a pod made by {@link workload} was generated as, from its name. */
export function podKind(pod: Pick<Pod, 'name'>): PodKind {
  return pod.name.slice(0, pod.name.lastIndexOf('-')) as PodKind;
}

/**
 * `count` pending pods of a shape, the same for the same seed. Draws happen in the order
 * Karpenter's generators make them (labels, selector, cpu, memory), though the numbers differ
 * from Go's math/rand.
 */
export function workload(shape: WorkloadShape, count: number, seed = 42): Pod[] {
  const random = mulberry32(seed);
  const kinds = shape === 'karpenter' ? KARPENTER_KINDS : shape === 'five' ? FIVE_KINDS : ['plain' as const];
  const selfMatching = shape === 'five';
  const each = Math.floor(count / kinds.length);
  const out: Pod[] = [];
  for (const kind of kinds) {
    for (let i = 0; i < each; i++) out.push(benchmarkPod(kind, random, selfMatching, out.length));
  }
  while (out.length < count) out.push(benchmarkPod('plain', random, selfMatching, out.length));
  return out;
}

/**
 * One pod of a kind, named `<kind>-<index>` so runs are deterministic whatever was built before
 * and results can be broken down by kind ({@link podKind}).
 */
function benchmarkPod(kind: PodKind, random: Random, selfMatching: boolean, index: number): Pod {
  const name = `${kind}-${index}`;
  const resources = () => ({ cpu: pick(random, CPU_VALUES), memory: pick(random, MEMORY_VALUES) });
  // Karpenter's labels and selectors: `my-label` for plain and spread pods, `my-affininity`
  // (sic) for affinity pods, `app: nginx` for anti-affinity pods.
  const labelAndSelector = (key: string) => {
    const label = { [key]: pick(random, LABEL_VALUES) };
    return { label, selector: selfMatching ? label : { [key]: pick(random, LABEL_VALUES) } };
  };
  switch (kind) {
    case 'plain':
      return pod({ name, labels: { 'my-label': pick(random, LABEL_VALUES) }, ...resources() });
    case 'zonal-spread':
    case 'hostname-spread': {
      const { label, selector } = labelAndSelector('my-label');
      return pod({
        name,
        labels: label,
        topologySpread: [
          {
            maxSkew: 1,
            topologyKey: kind === 'zonal-spread' ? LABEL_ZONE : LABEL_HOSTNAME,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: selector },
          },
        ],
        ...resources(),
      });
    }
    case 'zonal-affinity':
    case 'hostname-affinity': {
      const { label, selector } = labelAndSelector('my-affininity');
      return pod({
        name,
        labels: label,
        podAffinity: [
          {
            labelSelector: { matchLabels: selector },
            topologyKey: kind === 'zonal-affinity' ? LABEL_ZONE : LABEL_HOSTNAME,
          },
        ],
        ...resources(),
      });
    }
    case 'hostname-anti-affinity': {
      const labels = { app: 'nginx' };
      return pod({
        name,
        labels,
        podAntiAffinity: [{ labelSelector: { matchLabels: labels }, topologyKey: LABEL_HOSTNAME }],
        ...resources(),
      });
    }
  }
}
