import { z } from 'zod';
import { installProperties } from '../../shared/core/contracts/install';
import { installFailureVerdict } from '../../shared/core/install/access-grace';
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
import type { Clock } from '../../shared/core/ports/time';

/**
 * The installer's custom resource: CloudFormation's Create and Update server-side apply
 * podlift's manifests with the stack's values (and an Update prunes what the previous version
 * applied and this one no longer has), Delete removes them but the CRDs; the Provider
 * framework's isComplete polls until the watcher has rolled out.
 *
 * How the framework drives the two (aws-cdk-lib custom-resources/lib/provider-framework/
 * runtime/framework.ts): `createResponseEvent` merges onEvent's answer into the request
 * (`{ ...cfnRequest, ...onEventResult }`), so isComplete receives onEvent's `Data`; the waiter
 * state machine (waiter-state-machine.ts, Retry on States.ALL every queryInterval) passes that
 * same event to every poll; `isComplete` answers not-complete by throwing its `Retry` (and
 * refuses `Data` with IsComplete false), and on completion merges `event.Data` with the answer's.
 * An error thrown by either user handler reaches `cfn-response.ts` `safeHandler`, which fails the
 * resource at once with the message. So a refusal while the installer's fresh access entry
 * propagates (access-grace.ts) must not throw: onEvent answers with `ApplyPending` and the
 * operation's `StartedAt` in `Data`, and every isComplete poll re-applies (server-side apply is
 * idempotent) until it succeeds or the grace window since `StartedAt` has passed.
 */

const installEvent = z.object({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  PhysicalResourceId: z.string().optional(),
  ResourceProperties: installProperties.passthrough(),
  OldResourceProperties: installProperties.partial().passthrough().optional(),
  /** onEvent's Data, which the Provider framework merges into isComplete's event. */
  Data: z.object({ StartedAt: z.string(), ApplyPending: z.boolean() }).partial().passthrough().optional(),
});

type InstallRequest = z.infer<typeof installEvent>;

/** What the installer acts through. */
export interface InstallDeps {
  readonly manifests: ClusterManifestsPort;
  /** podlift's manifests as kustomize renders manifests/ (the bundle beside the handler). */
  readonly base: readonly ManifestObject[];
  /** Confirms the cluster exists; throws NotFoundError when it does not (EKS DescribeCluster). */
  readonly clusterExists: () => Promise<void>;
  /** When the operation starts, and how long ago that was at each poll. */
  readonly clock: Clock;
}

/** The onEvent answer: the physical id and what isComplete needs. */
export interface InstallResponse {
  readonly PhysicalResourceId: string;
  readonly Data: {
    readonly Applied: number;
    readonly Pruned: number;
    readonly Deleted: number;
    /** When onEvent began a Create or Update (ISO 8601): the grace window's start. */
    readonly StartedAt?: string;
    /**
     * True when the cluster did not honour the installer yet and isComplete applies instead
     * (the counts then stay 0: the framework takes no Data from a not-complete poll).
     */
    readonly ApplyPending?: boolean;
  };
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
  const startedAt = deps.clock.now();
  const StartedAt = new Date(startedAt).toISOString();
  const outcome = await applyAndPrune(request, deps, startedAt);
  if (outcome === 'pending')
    return { PhysicalResourceId, Data: { Applied: 0, Pruned: 0, Deleted: 0, StartedAt, ApplyPending: true } };
  return { PhysicalResourceId, Data: { ...outcome, Deleted: 0, StartedAt, ApplyPending: false } };
}

/**
 * Applies the stack's objects and, on Update, prunes what the previous version applied and this
 * one no longer has. Answers `pending` instead of failing while the cluster does not honour
 * the installer yet within the grace window since `startedAt`; past it, fails with the hint.
 */
async function applyAndPrune(
  request: InstallRequest,
  deps: InstallDeps,
  startedAt: number,
): Promise<{ Applied: number; Pruned: number } | 'pending'> {
  const props = request.ResourceProperties;
  const cluster = props.ClusterName;
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
      if (installFailureVerdict(error, startedAt, deps.clock.now()) === 'wait') return 'pending';
      throw failed(cluster, 'installing', error);
    }
  }
  const previous =
    request.RequestType === 'Update' ? refsOf(request.OldResourceProperties?.Objects ?? []) : [];
  const pruned = await deleteAll(deps, cluster, pruneRefs(previous, objects.map(refOf)));
  return { Applied: objects.length, Pruned: pruned };
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
 * it); a Create or Update when its objects are applied (by onEvent, or by this poll when onEvent
 * left `ApplyPending`) and the watcher's Deployment has rolled out. A rollout that failed for
 * good (progress deadline exceeded), or an apply still refused past the grace window, throws,
 * which fails the resource at once with the message.
 */
export async function isInstallComplete(event: unknown, deps: InstallDeps): Promise<CompletionResponse> {
  const request = installEvent.parse(event);
  if (request.RequestType === 'Delete') return { IsComplete: true, Message: 'deleted' };
  if (request.Data?.ApplyPending === true) {
    // A missing or unreadable start leaves no grace: fail rather than wait without a bound.
    const startedAt = Date.parse(request.Data.StartedAt ?? '');
    const outcome = await applyAndPrune(request, deps, Number.isNaN(startedAt) ? 0 : startedAt);
    if (outcome === 'pending') {
      return {
        IsComplete: false,
        Message: `waiting for cluster ${request.ResourceProperties.ClusterName} to honour the installer's access entry`,
      };
    }
  }
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
  const hint = /\b(Forbidden|Unauthorized|403|401)\b/.test(message)
    ? " (the installer's role needs its EKS access entry with AmazonEKSClusterAdminPolicy; the cluster's authentication mode must be API or API_AND_CONFIG_MAP)"
    : /\bE(CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|HOSTUNREACH|AI_AGAIN)\b|socket hang up|timed? ?out/i.test(
          message,
        )
      ? " (the installer runs outside the cluster's VPC: the cluster's public endpoint must be enabled and allow AWS Lambda's addresses)"
      : '';
  return new InstallError(`${doing} podlift's manifests in cluster ${cluster}: ${message}${hint}`, {
    cause: error,
  });
}
