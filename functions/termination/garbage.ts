import { instanceProfileName } from '../../shared/aws/nodeclass/instance-profile-name';
import type { CloudInstance } from '../../shared/core/ports/cloud';
import type { ClusterSnapshot } from '../../shared/core/state/cluster-snapshot';
import {
  launchTemplatesInUse,
  nodeClassesIncomplete,
  statusInstanceProfile,
  unusedInstanceProfiles,
} from '../../shared/core/termination/garbage-collection';
import type { Invocation } from '../invocation';
import { METRICS } from '../observability';
import type { LoopRuntime } from '../runtime';

/** What one garbage-collection pass deleted. */
export interface GarbageCollected {
  readonly launchTemplates: readonly string[];
  readonly instanceProfiles: readonly string[];
}

/**
 * Deletes the cluster's launch templates nothing has launched from lately and the instance
 * profiles no EC2NodeClass and no NodeClaim holds (core/termination/garbage-collection.ts), only
 * ever resources tagged for this cluster. A failure is logged and left for the next run: garbage
 * is never urgent, and termination's own steps must not wait for it.
 */
export async function collectGarbage(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
  instances: readonly CloudInstance[],
): Promise<GarbageCollected> {
  const [launchTemplates, instanceProfiles] = await Promise.all([
    collect(invocation, 'launch templates', () =>
      runtime.ports.launchTemplates.deleteUnreferenced(
        runtime.ports.config.clusterName,
        launchTemplatesInUse(instances, invocation.time.now()),
      ),
    ),
    collect(invocation, 'instance profiles', () => collectProfiles(runtime, invocation, snapshot)),
  ]);
  if (launchTemplates.length > 0) {
    invocation.metrics.add(METRICS.resourcesGarbageCollected, 'Count', launchTemplates.length, {
      kind: 'LaunchTemplate',
    });
    invocation.log.info('deleted unused launch templates', { launchTemplates });
  }
  if (instanceProfiles.length > 0) {
    invocation.metrics.add(METRICS.resourcesGarbageCollected, 'Count', instanceProfiles.length, {
      kind: 'InstanceProfile',
    });
    invocation.log.info('deleted unused instance profiles', { instanceProfiles });
  }
  return { launchTemplates, instanceProfiles };
}

async function collectProfiles(
  runtime: LoopRuntime,
  invocation: Invocation,
  snapshot: ClusterSnapshot,
): Promise<readonly string[]> {
  if (nodeClassesIncomplete(snapshot.invalid)) {
    invocation.log.info('an EC2NodeClass did not validate; instance profiles are collected once it does');
    return [];
  }
  const { clusterName, region } = runtime.ports.config;
  const current = new Set<string>();
  for (const nodeClass of snapshot.nodeClasses) {
    const status = statusInstanceProfile(nodeClass);
    if (status) current.add(status);
    if (nodeClass.instanceProfile) current.add(nodeClass.instanceProfile);
    const roleName = nodeClass.role?.split('/').at(-1);
    if (roleName)
      current.add(instanceProfileName(clusterName, region, nodeClass.name, nodeClass.uid, roleName));
  }
  const unused = unusedInstanceProfiles({
    now: invocation.time.now(),
    profiles: await runtime.ports.instanceProfiles.listClusterProfiles(),
    nodeClaims: snapshot.nodeClaims,
    current,
  });
  const deleted: string[] = [];
  for (const name of unused) {
    const outcome = await runtime.ports.instanceProfiles.delete(name);
    if (outcome === 'deleted') deleted.push(name);
    else if (outcome === 'not-ours')
      invocation.log.warn(
        'instance profile under the cluster path is not tagged for the cluster; left alone',
        {
          instanceProfile: name,
        },
      );
  }
  return deleted;
}

async function collect(
  invocation: Invocation,
  what: string,
  run: () => Promise<readonly string[]>,
): Promise<readonly string[]> {
  try {
    return await run();
  } catch (error) {
    invocation.log.warn(`collecting unused ${what} failed; the next run tries again`, {
      error: error instanceof Error ? error.message : String(error),
    });
    return [];
  }
}
