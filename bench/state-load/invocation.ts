import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { loadClusterSnapshot } from '../../functions/cluster-snapshot';
import { composePorts, type Ports } from '../../functions/compose';
import { runDisruption } from '../../functions/disruption/loop';
import { METRICS } from '../../functions/observability';
import { runProvisioner } from '../../functions/provisioner/loop';
import { runtimeOf } from '../../functions/runtime';
import type { DisruptionCommand } from '../../shared/core/disruption/methods';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import { staticKubeConfig } from '../../shared/kube/kubeconfig-source';
import { RecordingObservability } from '../../sim/fakes/ports/recording-observability';
import { clusterWorld } from '../../sim/world/cluster-world';

/** What one measured invocation reads, and how long each took. */
export interface InvocationMeasurement {
  readonly kind: StateLoadKind;
  /** Wall milliseconds of each run in order; the first is cold (empty caches). */
  readonly runsMs: readonly number[];
  /**
   * CPU milliseconds (user + system) the invocation's process spent in each run: what the
   * function itself costs, apart from waiting on the API server and on a busy machine.
   */
  readonly cpuMs: readonly number[];
  readonly pods: number;
  readonly nodes: number;
  readonly nodeClaims: number;
  /** What each disruption run decided (the disruption and consolidation kinds). */
  readonly decisions?: readonly DecisionRecord[];
}

/** One disruption run's decision, as its log line and DecisionTime metric tell it. */
export interface DecisionRecord {
  /** The run's steps, e.g. `recorded consolidation`, `waiting …`, `none`. */
  readonly steps: readonly string[];
  /** Milliseconds `decideDisruption` took (the DecisionTime metric), when the run decided. */
  readonly decisionMs?: number;
  /** CPU milliseconds of the same (the DecisionCpuTime metric): the figure a busy machine does not move. */
  readonly decisionCpuMs?: number;
  readonly method?: string;
  readonly candidates?: number;
  readonly replace?: boolean;
  /** USD per hour the command saves. */
  readonly savings?: number;
  /** The candidates' NodeClaim names. */
  readonly names?: readonly string[];
}

/** The disruption loop's log line for a decided command (functions/disruption/loop.ts). */
const RECORDED_MESSAGE = 'disruption command recorded; it runs after validation';

/** The invocations the bench can measure. */
export const STATE_LOAD_KINDS = ['snapshot', 'provisioner', 'disruption', 'consolidation'] as const;
export type StateLoadKind = (typeof STATE_LOAD_KINDS)[number];

/** Runs before the measured ones start, forcing collections (see gc-trace.ts runPeaks). */
export const LEADING_FORCED_GCS = 1;

/**
 * Measures `runs` invocations of `kind` against the API server at `url` from one container:
 * the first cold (catalog and NodeClass resolution not cached), the rest warm, as consecutive
 * Lambda invocations of one container are. A forced collection brackets each run so the parent
 * can read each run's peak heap from the GC trace. `featureGates` is the functions' `FEATURE_GATES`.
 */
export async function measureInvocations(
  url: string,
  kind: StateLoadKind,
  runs: number,
  featureGates?: string,
): Promise<InvocationMeasurement> {
  const world = await clusterWorld({
    loop: 'bench',
    ...(featureGates === undefined ? {} : { environment: { FEATURE_GATES: featureGates } }),
  });
  await world.close();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'bench', server: url, skipTLSVerify: true }],
    users: [{ name: 'podlift', token: 'podlift-test-token' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'podlift' }],
    currentContext: 'bench',
  });
  const ports = composePorts({
    config: world.config,
    clients: world.clients,
    time: world.time,
    random: () => 0.5,
    kubeConfigSource: staticKubeConfig(kubeConfig),
  });
  const observability = new RecordingObservability();
  const runtime = runtimeOf('bench', ports, world.time, observability.log, observability.metricsPort);
  const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 900_000 };
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const runsMs: number[] = [];
  const cpuMs: number[] = [];
  const decisions: DecisionRecord[] = [];
  let last = { pods: 0, nodes: 0, nodeClaims: 0 };
  for (let r = 0; r < runs; r++) {
    gc();
    const metricsBefore = observability.metrics.length;
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const invocation = runtime.begin(context);
    if (kind === 'provisioner') await runProvisioner(runtime, invocation);
    const summary =
      kind === 'disruption' || kind === 'consolidation'
        ? await runDisruption(runtime, invocation)
        : undefined;
    const { snapshot } =
      kind === 'snapshot'
        ? await loadClusterSnapshot(ports, invocation, runtime.unavailable, { resolveNodeClasses: true })
        : { snapshot: undefined };
    runsMs.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    if (summary) decisions.push(decisionOf(summary.steps, observability, metricsBefore));
    // The consolidation kind measures a decision every run: the command just recorded is taken
    // off its NodeClaims again (not timed), as if it had been cancelled, so the next run decides anew.
    if (kind === 'consolidation') await forgetCommands(ports, decisions[decisions.length - 1]);
    if (!snapshot) {
      gc();
      continue;
    }
    last = {
      pods: snapshot.pendingPods.length + snapshot.nodes.reduce((sum, node) => sum + node.pods.length, 0),
      nodes: snapshot.nodes.length,
      nodeClaims: snapshot.nodeClaims.length,
    };
    gc();
  }
  return { kind, runsMs, cpuMs, ...last, ...(decisions.length > 0 ? { decisions } : {}) };
}

function decisionOf(
  steps: readonly string[],
  observability: RecordingObservability,
  metricsBefore: number,
): DecisionRecord {
  const metric = (name: string) =>
    observability.metrics.slice(metricsBefore).find((m) => m.name === name)?.value;
  const decisionMs = metric(METRICS.decisionTime);
  const decisionCpuMs = metric(METRICS.decisionCpuTime);
  const recorded = observability.linesSaying(RECORDED_MESSAGE).at(-1)?.fields as
    | Partial<DisruptionCommand>
    | undefined;
  const decided = steps.some((s) => s.startsWith('recorded ')) && recorded;
  return {
    steps,
    ...(decisionMs !== undefined ? { decisionMs } : {}),
    ...(decisionCpuMs !== undefined ? { decisionCpuMs } : {}),
    ...(decided
      ? {
          method: recorded.method,
          candidates: recorded.candidates?.length,
          replace: recorded.replace,
          savings: recorded.savings,
          ...(recorded.candidates ? { names: recorded.candidates } : {}),
        }
      : {}),
  };
}

/**
 * Takes the decided command off its NodeClaims, and the single-node walk's resume mark too, so
 * that the next run walks the same candidates as this one (a run that resumed after the
 * decided node would walk every other candidate first, a different decision to measure).
 */
async function forgetCommands(ports: Ports, decision: DecisionRecord | undefined): Promise<void> {
  for (const name of decision?.names ?? [])
    await ports.cluster.patchNodeClaimMetadata(name, {
      annotations: { [ANNOTATIONS.disruptionCommand]: null },
    });
  const { items } = await ports.cluster.nodeClaims();
  for (const claim of items)
    if (claim.annotations[ANNOTATIONS.consolidationResume] !== undefined)
      await ports.cluster.patchNodeClaimMetadata(claim.name, {
        annotations: { [ANNOTATIONS.consolidationResume]: null },
      });
}
