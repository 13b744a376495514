import type { BinType, PodClass } from '../../shared/core/bound/bins';
import { binTypes, podClasses } from '../../shared/core/bound/bound-input';
import { configurationBound } from '../../shared/core/bound/config-lp';
import type { Catalog } from '../../shared/core/catalog/instance-type';
import { parseEC2NodeClass } from '../../shared/core/manifests/ec2nodeclass-schema';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';
import { podFromManifest } from '../../shared/core/manifests/pod-manifest';
import { schedulingInputFor } from '../../shared/core/scheduling/plan-capacity';
import { schedule } from '../../shared/core/scheduling/scheduler';
import { loadHighsSolver } from '../../shared/runtime/highs-solver';
import type { KubeObject } from '../fakes/kube';

/** A pod manifest as far as the snapshot reads it before parsing. */
export interface PodObject {
  readonly metadata?: { readonly deletionTimestamp?: unknown };
  readonly status?: unknown;
}

/** What the world sells and what the cluster asks for, as the soak's bound sees them. */
export interface ClusterSnapshot {
  /** The bundled catalog the world's EC2 prices come from. */
  readonly catalog: Catalog;
  /** Instance types the world's EC2 sells. */
  readonly instanceTypes: readonly string[];
  /** Zones the world's EC2 sells in. */
  readonly zones: readonly string[];
  readonly nodePool: KubeObject;
  readonly nodeClass: KubeObject;
  /** Every pod in the API server (manifests); the bound keeps the Pending and Running ones. */
  readonly pods: readonly PodObject[];
}

/** The configuration LP's input for one snapshot. */
export interface BoundInput {
  readonly types: readonly BinType[];
  readonly classes: readonly PodClass[];
  /** Pods counted (Pending or Running, not terminating). */
  readonly pods: number;
  /**
   * $/h of the planner's fresh plan for those pods on new nodes alone (what `podlift plan` would
   * launch for an empty cluster): what consolidation could reach at best with podlift's planner,
   * disruption aside.
   */
  readonly planned: number;
}

/**
 * Turns a snapshot into the LP's input: the NodePool's instance types among those the world
 * sells, each at its cheapest offering in the world's zones and capacity types the NodePool
 * allows (the same bundled prices the fake EC2 charges), and the pods still wanted — Pending or
 * Running, not being deleted — grouped by requests as bench/quality.ts groups them.
 */
export function boundInput(snapshot: ClusterSnapshot): BoundInput {
  const sold = new Set(snapshot.instanceTypes);
  const catalog: Catalog = {
    ...snapshot.catalog,
    zones: snapshot.zones,
    types: snapshot.catalog.types.filter((t) => sold.has(t.name)),
  };
  const pool = parseNodePool(snapshot.nodePool);
  const nodeClass = parseEC2NodeClass(snapshot.nodeClass);
  const wanted = snapshot.pods.filter((p) => {
    const phase = (p.status as { phase?: string } | undefined)?.phase;
    return (phase === 'Pending' || phase === 'Running') && !p.metadata?.deletionTimestamp;
  });
  const pods = wanted.map((p) => podFromManifest(p));
  const input = schedulingInputFor(
    { pods, daemonSets: [], nodes: [], nodePools: [pool], nodeClasses: [nodeClass] },
    catalog,
  );
  const planned = schedule(input).nodeClaims.reduce((sum, plan) => sum + plan.price, 0);
  return { types: binTypes(input), classes: podClasses(pods), pods: pods.length, planned };
}

/** One row of the soak's cost table. */
export interface BoundPoint {
  /** Simulated milliseconds since the soak started. */
  readonly atMs: number;
  readonly pods: number;
  /** What the running and pending instances cost, USD per hour. */
  readonly dollarsPerHour: number;
  /** What the planner's fresh plan for the same pods costs, USD per hour ({@link BoundInput}). */
  readonly planned?: number;
  /** The configuration-LP lower bound, USD per hour; absent when it timed out. */
  readonly bound?: number;
  /**
   * What the instances no disruption keeping the NodePool's rules could remove at this point
   * cost, USD per hour (floor.ts `sunkInstanceIds`); absent when not measured.
   */
  readonly sunk?: number;
  /**
   * What EC2's choice among the NodeClaims' options adds to `dollarsPerHour` over their cheapest
   * options, USD per hour (premium.ts `allocationPremium`); absent when not measured.
   */
  readonly premium?: number;
  /** Wall milliseconds the LP took. */
  readonly lpMs?: number;
}

/** The bound for one snapshot, or no bound when the LP ran past `maxMs`. */
export async function boundPoint(
  snapshot: ClusterSnapshot,
  atMs: number,
  dollarsPerHour: number,
  maxMs: number,
): Promise<BoundPoint> {
  const input = boundInput(snapshot);
  const solver = await loadHighsSolver();
  // Wall time, not the simulation's: the cap bounds how long the soak waits for the LP.
  const start = performance.now();
  const lp = configurationBound(solver, input.types, input.classes, {
    shouldStop: () => performance.now() - start > maxMs,
  });
  const lpMs = performance.now() - start;
  const measured = { atMs, pods: input.pods, dollarsPerHour, planned: input.planned, lpMs };
  return lp.timedOut ? measured : { ...measured, bound: lp.cost };
}

/** cost ÷ bound, or undefined when there is no bound or nothing to bound. */
function ratio(p: BoundPoint): number | undefined {
  return p.bound !== undefined && p.bound > 0 ? p.dollarsPerHour / p.bound : undefined;
}

/**
 * cost ÷ bound had EC2 launched every NodeClaim's cheapest option; undefined without a bound or
 * a premium.
 */
export function cheapestOptionsRatio(p: BoundPoint): number | undefined {
  return p.bound !== undefined && p.bound > 0 && p.premium !== undefined
    ? (p.dollarsPerHour - p.premium) / p.bound
    : undefined;
}

/**
 * The floor under a point's cost ÷ bound from the cluster as the run left it (floor.ts): the
 * larger of the bound and what the sunk instances cost, ÷ the bound; undefined without a bound or
 * a sunk cost.
 */
export function floorRatio(p: BoundPoint): number | undefined {
  return p.bound !== undefined && p.bound > 0 && p.sunk !== undefined
    ? Math.max(p.sunk, p.bound) / p.bound
    : undefined;
}

/**
 * The table printed at the end of a soak: simulated time, pods, $/h, bound, ratio per point,
 * then the mean and max ratio over the points that have one (none while no pod is wanted).
 */
export function formatBoundTable(points: readonly BoundPoint[]): string {
  const lines = [
    'plan cost against the configuration-LP lower bound:',
    '  sim min   pods      $/h    bound   ratio   fresh plan ÷ bound   floor ÷ bound   at cheapest options',
  ];
  for (const p of points) {
    const r = ratio(p);
    lines.push(
      `  ${(p.atMs / 60_000).toFixed(1).padStart(7)} ${String(p.pods).padStart(6)} ${p.dollarsPerHour.toFixed(3).padStart(8)} ${
        p.bound === undefined
          ? 'bound timed out'
          : `${p.bound.toFixed(3).padStart(8)} ${r === undefined ? '      -' : r.toFixed(2).padStart(7)}${
              p.planned !== undefined && p.bound > 0 ? (p.planned / p.bound).toFixed(2).padStart(21) : ''
            }${floorRatio(p)?.toFixed(2).padStart(16) ?? ''}${cheapestOptionsRatio(p)?.toFixed(2).padStart(22) ?? ''}`
      }`,
    );
  }
  const ratios = points.map(ratio).filter((r): r is number => r !== undefined);
  const lpMs = Math.max(0, ...points.map((p) => p.lpMs ?? 0));
  lines.push(
    ratios.length === 0
      ? 'cost ÷ bound: no point with pods to bound'
      : `cost ÷ bound: mean ${(ratios.reduce((s, r) => s + r, 0) / ratios.length).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)} over ${ratios.length} points`,
  );
  if (points.some((p) => p.lpMs !== undefined))
    lines.push(`bound's wall time per point: max ${(lpMs / 1000).toFixed(2)} s`);
  return lines.join('\n');
}
