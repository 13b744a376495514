import { installManifests } from '../../../infra/parts/install-manifests';
import type { InstallProperties } from '../../../shared/core/contracts/install';
import type { FakeKubeApiServer } from '../../../sim/fakes/kube';

/**
 * What the installer's tests share: the stack's properties, the events CloudFormation sends
 * and what the Deployment controller reports once the watcher is ready.
 */

/** The manifests as synth renders them. */
export const manifests = installManifests();

/** The custom resource's properties, as the stack sets them. */
export function properties(overrides: Partial<InstallProperties> = {}): InstallProperties {
  return {
    ClusterName: 'demo',
    EventBusName: 'podlift-demo',
    Region: 'eu-west-1',
    WatcherImage: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/podlift-watcher:1.2.3',
    ManifestsDigest: manifests.digest,
    Objects: [...manifests.objects],
    ...overrides,
  };
}

/** CloudFormation's Create. */
export const create = (props = properties()) => ({ RequestType: 'Create', ResourceProperties: props });

/** CloudFormation's Update from `old` to `props`. */
export const update = (props: InstallProperties, old: InstallProperties) => ({
  RequestType: 'Update',
  PhysicalResourceId: 'podlift-manifests-demo',
  ResourceProperties: props,
  OldResourceProperties: old,
});

/** CloudFormation's Delete. */
export const remove = (props = properties()) => ({
  RequestType: 'Delete',
  PhysicalResourceId: 'podlift-manifests-demo',
  ResourceProperties: props,
});

/** What the Deployment controller reports once the watcher's pod is ready. */
export function rolledOut(server: FakeKubeApiServer): void {
  const live = server.store.get('deployments.apps', 'podlift-watcher', 'podlift');
  server.store.updateStatus(
    'deployments.apps',
    {
      ...live,
      status: {
        observedGeneration: live.metadata.generation,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
    },
    { namespace: 'podlift' },
  );
}

/** A clock the test moves by hand. */
export class TestClock {
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  advance(ms: number): void {
    this.at += ms;
  }
}
