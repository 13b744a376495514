import type { Catalog, InstanceType } from '../shared/core/catalog/instance-type';
import { resolveInstanceTypes } from '../shared/core/catalog/instance-type-resolution';
import type { EC2NodeClass } from '../shared/core/model/ec2nodeclass';
import { LABEL_CAPACITY_TYPE, LABEL_OS } from '../shared/core/model/labels';
import type { NodePool } from '../shared/core/model/nodepool';
import type { Pod } from '../shared/core/model/pod';
import { Requirements } from '../shared/core/model/requirements';
import { schedulingInputFor } from '../shared/core/scheduling/plan-capacity';
import type { SchedulingInput } from '../shared/core/scheduling/types';
import { nodeClass, nodePool } from '../sim/world/builders';
import { type PricedType, pricedTypes } from './lower-bound';

/** The region every benchmark plans in. */
export const BENCH_REGION = 'us-east-1';

/**
 * What the benchmarks schedule against: the full bundled catalog for {@link BENCH_REGION}, one
 * NodePool requiring only linux and allowing spot and on-demand, no limits, and the default
 * EC2NodeClass.
 */
export interface BenchEnvironment {
  readonly catalog: Catalog;
  readonly nodePool: NodePool;
  readonly nodeClass: EC2NodeClass;
  readonly instanceTypes: readonly InstanceType[];
  /** The NodePool's instance types priced for the lower bound. */
  readonly priced: readonly PricedType[];
}

/** How long building the environment took, in milliseconds. */
export interface SetupTimes {
  /** Importing shared/core/catalog/bundled: tsx transpilation plus parsing the bundled JSON data. */
  readonly importMs: number;
  readonly loadCatalogMs: number;
  readonly resolveInstanceTypesMs: number;
  readonly instanceTypes: number;
}

/** Loads the catalog and resolves instance types, timing each step (the first, cold call). */
export async function loadEnvironment(): Promise<{ env: BenchEnvironment; setup: SetupTimes }> {
  const t0 = performance.now();
  // Imported here rather than at the top so the bundled JSON's parse time is measured.
  const { loadBundledCatalog } = await import('../shared/core/catalog/bundled');
  const t1 = performance.now();
  const catalog = loadBundledCatalog(BENCH_REGION);
  const t2 = performance.now();
  const defaultClass = nodeClass();
  const instanceTypes = resolveInstanceTypes(catalog, defaultClass);
  const t3 = performance.now();
  const pool = nodePool({
    requirements: [
      { key: LABEL_OS, operator: 'In', values: ['linux'] },
      { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['spot', 'on-demand'] },
    ],
  });
  const priced = pricedTypes(instanceTypes, Requirements.from(pool.template.requirements));
  return {
    env: { catalog, nodePool: pool, nodeClass: defaultClass, instanceTypes, priced },
    setup: {
      importMs: t1 - t0,
      loadCatalogMs: t2 - t1,
      resolveInstanceTypesMs: t3 - t2,
      instanceTypes: instanceTypes.length,
    },
  };
}

/**
 * The scheduler's input for `pods` in the environment (no existing nodes, no DaemonSets), built
 * as planCapacity builds it: its instance types are the ones resolved at load (memoised).
 */
export function schedulingInput(env: BenchEnvironment, pods: readonly Pod[]): SchedulingInput {
  const state = { pods, daemonSets: [], nodes: [], nodePools: [env.nodePool], nodeClasses: [env.nodeClass] };
  return schedulingInputFor(state, env.catalog);
}
