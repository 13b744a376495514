import { CANDIDATE_TAINT, candidateTaintChanges } from '../../shared/core/disruption/candidate-taint';
import { deletionCostChanges } from '../../shared/core/disruption/deletion-cost';
import { isCloudError, isNotFoundError } from '../../shared/core/model/errors';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { checkpoint } from '../lease';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/**
 * Pod writes one run makes at most: the API server's write load stays bounded (the ReplicaSet
 * documentation warns against updating pod-deletion-cost often) and the run short; the next run,
 * a minute later, goes on with the rest, the first-ranked nodes' pods having gone first.
 */
export const MAX_DELETION_COST_WRITES = 100;

/**
 * Brings the pods' pod-deletion-cost to what scale-down steering wants
 * (shared/core/disruption/deletion-cost.ts), or removes the costs podlift wrote when the
 * `PodDeletionCostManagement` gate is off. Each write is conditioned on the pod's resourceVersion
 * as read, so a cost a user set in between is never written over. A pod gone or changed
 * meanwhile is skipped (the next run reads it again); any other refusal
 * (a role without `patch` on pods, the server busy) stops the writes for this run, logged once:
 * steering is a hint, the next run tries again, and nothing else the run does depends on it.
 * @returns how many pods were written.
 */
export async function steerScaleDowns(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<number> {
  const enabled = runtime.ports.config.featureGates.podDeletionCostManagement;
  const changes = deletionCostChanges(snapshot, enabled).slice(0, MAX_DELETION_COST_WRITES);
  let written = 0;
  for (const { namespace, name, nodeName, annotations, resourceVersion } of changes) {
    checkpoint(invocation);
    try {
      await runtime.ports.cluster.patchPodMetadata(
        { namespace, name },
        { annotations, ...(resourceVersion ? { resourceVersion } : {}) },
      );
      written++;
    } catch (error) {
      if (isNotFoundError(error) || (isCloudError(error) && error.code === 'Conflict')) continue;
      invocation.log.warn('writing pod-deletion-cost failed; the next run tries again', {
        pod: `${namespace}/${name}`,
        node: nodeName,
        error: String(error),
      });
      break;
    }
  }
  if (written > 0) {
    invocation.metrics.add(METRICS.podDeletionCostsWritten, 'Count', written);
    invocation.log.info('pod-deletion-cost written to steer scale-downs', { pods: written, enabled });
  }
  return written;
}

/**
 * Node writes one run makes at most to put the disruption-candidate taint on or off; the next run
 * goes on with the rest.
 */
export const MAX_CANDIDATE_TAINT_WRITES = 50;

/** Time the search for candidate nodes may take, at most: the run's decision has had its own. */
const CANDIDATE_SEARCH_MS = 5_000;

/**
 * Brings the nodes' disruption-candidate taint to what scale-up steering wants
 * (shared/core/disruption/candidate-taint.ts), or takes off every one podlift put when the
 * `CandidateTaint` gate is off. Only podlift's own taint is written (`taintNode` keeps everyone
 * else's). A node gone meanwhile is skipped; any other refusal stops the writes for this run,
 * logged once: a PreferNoSchedule taint is a hint, and nothing else the run does depends on it.
 * @returns how many nodes were written.
 */
export async function steerScaleUps(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<number> {
  const gates = runtime.ports.config.featureGates;
  const searchEnds = Math.min(invocation.time.now() + CANDIDATE_SEARCH_MS, invocation.deadline);
  const changes = candidateTaintChanges(snapshot, gates.candidateTaint, {
    ...gates,
    outOfTime: () => invocation.time.now() >= searchEnds,
  }).slice(0, MAX_CANDIDATE_TAINT_WRITES);
  let written = 0;
  for (const { node, taint } of changes) {
    checkpoint(invocation);
    try {
      await runtime.ports.cluster.taintNode(
        node,
        taint ? { add: [CANDIDATE_TAINT] } : { remove: [CANDIDATE_TAINT] },
      );
      written++;
    } catch (error) {
      if (isNotFoundError(error)) continue;
      invocation.log.warn('writing the disruption-candidate taint failed; the next run tries again', {
        node,
        error: String(error),
      });
      break;
    }
  }
  if (written > 0) {
    invocation.metrics.add(METRICS.candidateTaintsChanged, 'Count', written);
    invocation.log.info('disruption-candidate taint written to steer scale-ups', {
      nodes: written,
      enabled: gates.candidateTaint,
    });
  }
  return written;
}
