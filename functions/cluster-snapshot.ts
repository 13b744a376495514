import { mergeWithCrds } from '../shared/aws/ssm-config/merge-with-crds';
import type { UnavailableOfferings } from '../shared/core/catalog/unavailable-offerings';
import type { EC2NodeClassStatus } from '../shared/core/model/ec2nodeclass-status';
import type { ValidationError } from '../shared/core/model/errors';
import type { ClusterSnapshot } from '../shared/core/state/cluster-snapshot';
import type { Ports } from './compose';
import type { Invocation } from './invocation';
import { METRICS } from './observability';

/** What a loop needs beyond the cluster's objects. */
export interface SnapshotParts {
  /** Read the catalog (instance types, offerings, prices). @default true */
  readonly catalog?: boolean;
  /** Resolve every EC2NodeClass's subnets, security groups, AMIs and profile. @default false */
  readonly resolveNodeClasses?: boolean;
  /** Read the pending pods. @default true */
  readonly pendingPods?: boolean;
  /** List the cluster's EC2 instances (subnet and security-group drift). @default false */
  readonly instances?: boolean;
}

/** A resolution that failed, by EC2NodeClass name: the loops report it on the object and skip it. */
export type NodeClassFailures = ReadonlyMap<string, Error>;

/** The snapshot and what could not be resolved. */
export interface LoadedSnapshot {
  readonly snapshot: ClusterSnapshot;
  readonly nodeClassFailures: NodeClassFailures;
}

/**
 * Reads everything a loop decides from, in parallel: pending pods, Nodes with their pods,
 * NodeClaims, DaemonSets, PodDisruptionBudgets, NodePools and EC2NodeClasses (CRDs, merged with
 * SSM parameters where no CRD of the name exists), the catalog, and the unavailable offerings the
 * Lease carries (merged into `unavailable`, the container's own set, which the loop keeps
 * marking and saves back). Objects that do not validate are reported in `invalid` and left out;
 * the rest are read.
 */
export async function loadClusterSnapshot(
  ports: Ports,
  invocation: Invocation,
  unavailable: UnavailableOfferings,
  parts: SnapshotParts = {},
): Promise<LoadedSnapshot> {
  const { cluster } = ports;
  // An unsupported cluster fails here, once per container and by name, rather than as the
  // evictions and lists that would break on it later.
  await cluster.checkServerVersion();
  const [
    pending,
    nodes,
    nodeClaims,
    daemonSets,
    pdbs,
    crdPools,
    crdClasses,
    ssm,
    catalog,
    stored,
    instances,
  ] = await Promise.all([
    parts.pendingPods === false ? { items: [], invalid: [] } : cluster.pendingPods(),
    cluster.nodes(),
    cluster.nodeClaims(),
    cluster.daemonSets(),
    cluster.podDisruptionBudgets(),
    cluster.nodePools(),
    cluster.nodeClasses(),
    ports.nodePoolConfig.load(),
    parts.catalog === false ? undefined : ports.catalog.catalog(),
    ports.lease.loadUnavailableOfferings(),
    parts.instances ? ports.instances.listClusterInstances() : undefined,
  ]);
  unavailable.restore(stored);
  const merged = mergeWithCrds(
    { nodePools: crdPools.items, nodeClasses: crdClasses.items },
    { nodePools: ssm.nodePools, nodeClasses: ssm.nodeClasses, warnings: ssm.warnings },
  );
  const statuses = new Map<string, EC2NodeClassStatus>();
  const failures = new Map<string, Error>();
  if (parts.resolveNodeClasses) {
    await Promise.all(
      merged.nodeClasses.map(async (nodeClass) => {
        try {
          statuses.set(nodeClass.name, await ports.nodeClasses.resolve(nodeClass));
        } catch (error) {
          failures.set(nodeClass.name, error instanceof Error ? error : new Error(String(error)));
        }
      }),
    );
  }
  const snapshot: ClusterSnapshot = {
    now: invocation.time.now(),
    pendingPods: pending.items,
    nodes: nodes.items,
    nodeClaims: nodeClaims.items,
    daemonSets: daemonSets.items,
    podDisruptionBudgets: pdbs,
    nodePools: merged.nodePools,
    nodeClasses: merged.nodeClasses,
    nodeClassStatus: statuses,
    ...(catalog ? { catalog } : {}),
    ...(instances ? { instances: new Map(instances.map((i) => [i.providerID, i])) } : {}),
    unavailableOfferings: unavailable.keys(),
    invalid: [
      ...pending.invalid,
      ...nodes.invalid,
      ...nodeClaims.invalid,
      ...daemonSets.invalid,
      ...crdPools.invalid,
      ...crdClasses.invalid,
      ...ssm.errors,
    ],
    warnings: merged.warnings,
  };
  reportInvalid(invocation, snapshot.invalid);
  return { snapshot, nodeClassFailures: failures };
}

/**
 * One warning line and one `InvalidObjects` count (by kind) per object or SSM parameter that
 * was skipped, in every loop that read it: the line names the object, where it came from and
 * the field and value at fault; the rest of the cluster is decided on as usual.
 */
function reportInvalid(invocation: Invocation, invalid: readonly ValidationError[]): void {
  const byKind = new Map<string, number>();
  for (const error of invalid) {
    const object = error.location.object;
    invocation.log.warn('skipping an invalid object', {
      ...(object === undefined ? {} : { object }),
      ...(error.location.source === undefined ? {} : { source: error.location.source }),
      error: error.message,
    });
    const kind = object?.split('/', 1)[0] ?? 'unknown';
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  for (const [kind, count] of byKind)
    invocation.metrics.add(METRICS.invalidObjects, 'Count', count, { kind });
}
