import { toStatusManifest } from '../../shared/core/model/ec2nodeclass-conditions';
import { nodeClassReady } from '../../shared/core/model/ec2nodeclass-status';
import { semanticallyEqual } from '../../shared/core/model/semantic-equal';
import { nodePoolCost, nodePoolStatus } from '../../shared/core/provisioning/nodepool-status';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Writes each EC2NodeClass's resolved status and conditions (SubnetsReady, SecurityGroupsReady,
 * AMIsReady, InstanceProfileReady, Ready), so `kubectl get ec2nodeclass` says why one cannot
 * launch; a class that is not Ready is skipped by the planning, the others keep working. A
 * status equal to the one read is not written again.
 */
export async function reportNodeClasses(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
) {
  for (const [name, status] of snapshot.nodeClassStatus) {
    if (!nodeClassReady(status)) {
      const why = status.conditions.filter((c) => c.status !== 'True').map((c) => `${c.type}: ${c.message}`);
      invocation.log.warn('EC2NodeClass not ready; its NodePools launch nothing', { nodeClass: name, why });
    }
    // The status as read: the API server returns its keys sorted, so only a semantic
    // comparison tells an unchanged status from a changed one.
    const stored = snapshot.nodeClasses.find((c) => c.name === name)?.status;
    if (stored && semanticallyEqual(toStatusManifest(status), stored)) continue;
    await runtime.ports.cluster.writeNodeClassStatus(name, status).catch((error: unknown) => {
      invocation.log.warn('writing EC2NodeClass status failed', {
        nodeClass: name,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }
}

/**
 * Writes each NodePool's status: resources in use and ValidationSucceeded, NodeClassReady and
 * Ready, as Karpenter reports them, so `kubectl get nodepools` says why one launches nothing,
 * and its $/h (`NodePoolDollarsPerHour`, the launch prices its NodeClaims carry). A
 * NodePool that failed validation gets ValidationSucceeded=False with the validation message,
 * and is skipped by everything else; so does an EC2NodeClass (with Ready=False).
 */
export async function reportNodePools(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
) {
  const write = (name: string, status: ReturnType<typeof nodePoolStatus>) =>
    runtime.ports.cluster.writeNodePoolStatus(name, status).catch((error: unknown) => {
      invocation.log.warn('writing NodePool status failed', { nodePool: name, error: errorText(error) });
    });
  for (const pool of snapshot.nodePools) {
    const status = snapshot.nodeClassStatus.get(pool.template.nodeClassRef.name);
    const nodeClass = status && {
      ready: nodeClassReady(status),
      message: status.conditions
        .filter((c) => c.status !== 'True')
        .map((c) => `${c.type}: ${c.message}`)
        .join('; '),
    };
    await write(pool.name, nodePoolStatus(pool, snapshot.nodeClaims, nodeClass));
    invocation.metrics.add(METRICS.costPerHour, 'None', nodePoolCost(pool.name, snapshot.nodeClaims), {
      nodePool: pool.name,
    });
  }
  for (const invalid of snapshot.invalid) {
    // Only an object read from the cluster has a status to write: an SSM parameter's error
    // may name a NodePool that exists as a valid CRD (which wins) or not at all.
    if (invalid.location.source !== 'cluster') continue;
    const nodeClass = /^EC2NodeClass\/(.+)$/.exec(invalid.location.object ?? '')?.[1];
    if (nodeClass) {
      // Karpenter's EC2NodeClass carries ValidationSucceeded too (aws apis/v1/ec2nodeclass_status.go);
      // it sets it from its own checks, podlift from the object's validation.
      const failed = { status: 'False', reason: 'ValidationFailed', message: invalid.message } as const;
      await runtime.ports.cluster
        .writeNodeClassConditions(nodeClass, [
          { type: 'ValidationSucceeded', ...failed },
          { type: 'Ready', ...failed },
        ])
        .catch((error: unknown) => {
          invocation.log.warn('writing EC2NodeClass conditions failed', {
            nodeClass,
            error: errorText(error),
          });
        });
      continue;
    }
    const name = /^NodePool\/(.+)$/.exec(invalid.location.object ?? '')?.[1];
    if (!name) continue;
    await write(name, {
      resources: {},
      conditions: [
        {
          type: 'ValidationSucceeded',
          status: 'False',
          reason: 'ValidationFailed',
          message: invalid.message,
        },
        { type: 'Ready', status: 'False', reason: 'ValidationFailed', message: invalid.message },
      ],
    });
  }
}
