import { z } from 'zod';
import { installProperties } from '../../shared/core/contracts/install';
import {
  formatRef,
  type InstallValues,
  installObjects,
  type ManifestObject,
  type ObjectRef,
  parseRef,
  refOf,
  WATCHER_DEPLOYMENT,
} from '../../shared/core/install/install-objects';
import { applyOrder, deletionOrder, pruneRefs } from '../../shared/core/install/install-plan';
import { type DeploymentState, deploymentRollout } from '../../shared/core/install/rollout-status';
import { isNotFoundError, PodliftError } from '../../shared/core/model/errors';
import type { ClusterManifestsPort } from '../../shared/core/ports/cluster-manifests';

/**
 * The installer's custom resource: CloudFormation's Create and Update server-side apply
 * podlift's manifests with the stack's values (and an Update prunes what the previous version
 * applied and this one no longer has), Delete removes them but the CRDs; the Provider
 * framework's isComplete polls until the watcher has rolled out (aws-cdk-lib
 * custom-resources/lib/provider-framework/runtime/framework.ts `onEvent` and `isComplete`: an
 * onEvent error fails the resource at once with its message, isComplete is retried until it
 * answers IsComplete or the provider's totalTimeout).
 */

const installEvent = z.object({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  PhysicalResourceId: z.string().optional(),
  ResourceProperties: installProperties.passthrough(),
  OldResourceProperties: installProperties.partial().passthrough().optional(),
});

/** What the installer acts through. */
export interface InstallDeps {
  readonly manifests: ClusterManifestsPort;
  /** podlift's manifests as kustomize renders manifests/ (the bundle beside the handler). */
  readonly base: readonly ManifestObject[];
  /** Confirms the cluster exists; throws NotFoundError when it does not (EKS DescribeCluster). */
  readonly clusterExists: () => Promise<void>;
}

/** The onEvent answer: the physical id and what isComplete needs. */
export interface InstallResponse {
  readonly PhysicalResourceId: string;
  readonly Data: { readonly Applied: number; readonly Pruned: number; readonly Deleted: number };
}

/** A failed install step, named for CloudFormation's status reason. */
export class InstallError extends PodliftError {
  override readonly name = 'InstallError';
}

/** Handles a CloudFormation Create, Update or Delete of the manifests. */
export async function onInstallEvent(event: unknown, deps: InstallDeps): Promise<InstallResponse> {
  const request = installEvent.parse(event);
  const props = request.ResourceProperties;
  const cluster = props.ClusterName;
  const PhysicalResourceId = request.PhysicalResourceId ?? `podlift-manifests-${cluster}`;
  if (request.RequestType === 'Delete') {
    try {
      await deps.clusterExists();
    } catch (error) {
      // The cluster went first (deleted before the stack): nothing of podlift's is left in it.
      if (isNotFoundError(error)) return { PhysicalResourceId, Data: { Applied: 0, Pruned: 0, Deleted: 0 } };
      throw failed(cluster, 'removing', error);
    }
    const deleted = await deleteAll(deps, cluster, deletionOrder(refsOf(props.Objects)));
    return { PhysicalResourceId, Data: { Applied: 0, Pruned: 0, Deleted: deleted } };
  }
  const values: InstallValues = {
    clusterName: cluster,
    eventBusName: props.EventBusName,
    region: props.Region,
    watcherImage: props.WatcherImage,
  };
  const objects = applyOrder(installObjects(deps.base, values));
  for (const object of objects) {
    try {
      await deps.manifests.apply(object);
    } catch (error) {
      throw failed(cluster, 'installing', error);
    }
  }
  const previous =
    request.RequestType === 'Update' ? refsOf(request.OldResourceProperties?.Objects ?? []) : [];
  const pruned = await deleteAll(deps, cluster, pruneRefs(previous, objects.map(refOf)));
  return { PhysicalResourceId, Data: { Applied: objects.length, Pruned: pruned, Deleted: 0 } };
}

/** The isComplete answer. */
export interface CompletionResponse {
  readonly IsComplete: boolean;
  /**
   * kubectl's rollout message, for the installer's log (the framework reads only IsComplete and
   * Data from the answer).
   */
  readonly Message: string;
}

/**
 * Whether the request is done: a Delete is (deleting returns at once, the API server finishes
 * it); a Create or Update when the watcher's Deployment has rolled out. A rollout that failed
 * for good (progress deadline exceeded) throws, which the Provider framework retries until its
 * timeout, so the error and its message stay in the installer's log.
 */
export async function isInstallComplete(event: unknown, deps: InstallDeps): Promise<CompletionResponse> {
  const request = installEvent.parse(event);
  if (request.RequestType === 'Delete') return { IsComplete: true, Message: 'deleted' };
  const deployment = deps.base.find((o) => o.kind === 'Deployment' && o.metadata.name === WATCHER_DEPLOYMENT);
  if (!deployment) throw new InstallError(`podlift's manifests have no Deployment ${WATCHER_DEPLOYMENT}`);
  const live = await deps.manifests.read(refOf(deployment));
  if (!live) {
    throw new InstallError(
      `${formatRef(refOf(deployment))} is gone from cluster ${request.ResourceProperties.ClusterName}`,
    );
  }
  const rollout = deploymentRollout(live as unknown as DeploymentState);
  if (rollout.state === 'failed') throw new InstallError(rollout.message);
  return { IsComplete: rollout.state === 'done', Message: rollout.message };
}

async function deleteAll(deps: InstallDeps, cluster: string, refs: readonly ObjectRef[]): Promise<number> {
  let deleted = 0;
  for (const ref of refs) {
    try {
      if ((await deps.manifests.delete(ref)) === 'deleted') deleted += 1;
    } catch (error) {
      throw failed(cluster, 'removing', error);
    }
  }
  return deleted;
}

function refsOf(texts: readonly string[]): ObjectRef[] {
  return texts.map((text) => {
    const ref = parseRef(text);
    if (!ref)
      throw new InstallError(
        `the installer's property Objects holds ${JSON.stringify(text)}, not an object reference`,
      );
    return ref;
  });
}

/**
 * The error CloudFormation shows as the resource's status reason: what failed, in which
 * cluster, and what to check for the two failures a first deploy meets.
 */
function failed(cluster: string, doing: 'installing' | 'removing', error: unknown): InstallError {
  const message = error instanceof Error ? error.message : String(error);
  const hint = /\bForbidden\b|\b403\b/.test(message)
    ? " (the installer's role needs its EKS access entry with AmazonEKSClusterAdminPolicy; the cluster's authentication mode must be API or API_AND_CONFIG_MAP)"
    : /\bE(CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|HOSTUNREACH)\b|socket hang up|timed? ?out/i.test(message)
      ? " (the installer runs outside the cluster's VPC: the cluster's public endpoint must be enabled and allow AWS Lambda's addresses)"
      : '';
  return new InstallError(`${doing} podlift's manifests in cluster ${cluster}: ${message}${hint}`, {
    cause: error,
  });
}
