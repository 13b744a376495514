import type { InstanceType } from '../../shared/core/catalog/instance-type';
import type { EC2NodeClass } from '../../shared/core/model/ec2nodeclass';
import type { EC2NodeClassStatus } from '../../shared/core/model/ec2nodeclass-status';
import { CloudError, InsufficientCapacityError, PodliftError } from '../../shared/core/model/errors';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';
import type { NodePool } from '../../shared/core/model/nodepool';
import { launchOptions } from '../../shared/core/provisioning/claim-options';
import { launchedPrice, launchRecord } from '../../shared/core/provisioning/nodeclaims';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/** Everything one NodeClaim's launch needs besides the claim. */
export interface LaunchContext {
  readonly nodePool: NodePool;
  readonly nodeClass: EC2NodeClass;
  readonly resolved: EC2NodeClassStatus;
  /**
   * The NodePool's instance types by name, offerings refused recently marked: what the claim's
   * requirements choose its launch options from, and what the launcher sizes and filters with.
   */
  readonly instanceTypes: ReadonlyMap<string, InstanceType>;
}

/** How one launch ended. */
export type LaunchResult =
  | { readonly kind: 'launched'; readonly nodeClaim: NodeClaim; readonly price?: number }
  /** EC2 had no capacity in any offering: the offerings are marked, the NodeClaim deleted. */
  | { readonly kind: 'insufficient-capacity'; readonly message: string; readonly claimName?: string }
  /** Will not work by trying again: the NodeClaim is deleted with an Event saying why. */
  | { readonly kind: 'failed'; readonly message: string; readonly claimName?: string }
  /**
   * Throttled or unavailable: the NodeClaim stays, and the next run launches it; until then it
   * holds its pods and its room under the NodePool's limits (`schedulingCapacity`).
   */
  | {
      readonly kind: 'retry-later';
      readonly message: string;
      readonly claimName: string;
      readonly nodeClaim: NodeClaim;
    };

/**
 * Launches NodeClaim `claim` and records the launch on it (labels, price, instance profile, then
 * status with Launched=True), as Karpenter's lifecycle launch.go does. What it may launch as is
 * read from the claim alone (its requirements and requests, core/provisioning/claim-options.ts
 * `launchOptions`), as the AWS provider's `CloudProvider.Create` does: a first launch and one
 * after a crash or throttling ask CreateFleet for the same instance types. The launcher is
 * idempotent per NodeClaim (its ClientToken derives from the claim and request, and it finds an
 * instance already tagged with the claim), so running this again after a crash never launches
 * twice. A permanent failure deletes the NodeClaim with a Warning Event (launch.go deletes the
 * claim on any launch error; podlift keeps it only for errors worth retrying).
 */
export async function launchNodeClaim(
  runtime: LoopRuntime,
  invocation: Invocation,
  claim: NodeClaim,
  context: LaunchContext,
): Promise<LaunchResult> {
  const { ports } = runtime;
  const launcher = ports.launcher(context.instanceTypes, runtime.unavailable);
  try {
    const instance = await launcher.launch({
      nodeClaim: claim,
      nodePool: context.nodePool,
      nodeClass: context.nodeClass,
      resolved: context.resolved,
      options: launchOptions(
        claim.spec.requirements,
        claim.spec.resources.requests,
        [...context.instanceTypes.values()],
        runtime.unavailable.keys(),
      ),
    });
    // The cached free count of its reservation must not promise this slot again.
    if (instance.capacityType === 'reserved' && instance.capacityReservationId !== undefined)
      ports.nodeClasses.markLaunched?.(instance.capacityReservationId);
    const instanceType = context.instanceTypes.get(instance.instanceType);
    const price = launchedPrice(instance, instanceType);
    const record = launchRecord(instance, instanceType, price, context.resolved.instanceProfile);
    await ports.cluster.patchNodeClaimMetadata(claim.name, record.metadata);
    const launched = await ports.cluster.updateNodeClaimStatus(claim.name, record.status);
    invocation.metrics.add(METRICS.nodeClaimsLaunched, 'Count', 1, { nodePool: context.nodePool.name });
    invocation.log.info('launched NodeClaim', {
      nodeClaim: claim.name,
      nodePool: context.nodePool.name,
      instanceId: instance.instanceId,
      instanceType: instance.instanceType,
      zone: instance.zone,
      capacityType: instance.capacityType,
      ...(price !== undefined ? { price } : {}),
    });
    return { kind: 'launched', nodeClaim: launched, ...(price !== undefined ? { price } : {}) };
  } catch (error) {
    return launchFailed(runtime, invocation, claim, error);
  }
}

async function launchFailed(
  runtime: LoopRuntime,
  invocation: Invocation,
  claim: NodeClaim,
  error: unknown,
): Promise<LaunchResult> {
  const message = error instanceof Error ? error.message : String(error);
  const transient = !(error instanceof PodliftError) || (error instanceof CloudError && error.retryable);
  if (transient && !(error instanceof InsufficientCapacityError)) {
    invocation.log.warn('launch failed; the next run tries the NodeClaim again', {
      nodeClaim: claim.name,
      error: message,
    });
    return { kind: 'retry-later', message, claimName: claim.name, nodeClaim: claim };
  }
  const insufficient = error instanceof InsufficientCapacityError;
  invocation.metrics.add(
    insufficient ? METRICS.insufficientCapacity : METRICS.nodeClaimsLaunchFailed,
    'Count',
    1,
  );
  await runtime.ports.cluster.deleteNodeClaim(claim.name);
  await runtime.ports.events
    .record({
      object: {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        name: claim.name,
        ...(claim.uid ? { uid: claim.uid } : {}),
      },
      type: 'Warning',
      reason: insufficient ? 'InsufficientCapacityError' : 'LaunchFailed',
      message,
    })
    .catch(() => undefined);
  invocation.log.warn(
    insufficient
      ? 'no capacity for NodeClaim; deleted it and planning again'
      : 'launch failed for good; deleted the NodeClaim',
    {
      nodeClaim: claim.name,
      error: message,
    },
  );
  return { kind: insufficient ? 'insufficient-capacity' : 'failed', message, claimName: claim.name };
}
