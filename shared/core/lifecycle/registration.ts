import {
  LABEL_DO_NOT_SYNC_TAINTS,
  LABEL_INITIALIZED,
  LABEL_REGISTERED,
  UNREGISTERED_TAINT,
} from '../model/labels';
import { conditionIsTrue, type NodeClaim, TERMINATION_FINALIZER } from '../model/nodeclaim';
import { CPU, EPHEMERAL_STORAGE, MEMORY, PODS } from '../model/resources';
import { formatTaint, isKnownEphemeralTaint, type Taint } from '../model/taints';
import type { MetadataPatch, NodeClaimStatusUpdate, NodeOwnerReference, TaintChange } from '../ports/cluster';
import type { StateNode } from '../state/cluster-state';

/**
 * A NodeClaim's life after launch, one step per provisioner run: Registered when its Node
 * joined, Initialized when that Node is ready for pods (kubernetes-sigs/karpenter
 * pkg/controllers/nodeclaim/lifecycle registration.go and initialization.go).
 */

/** What to write for one NodeClaim and its Node; empty when nothing is to change. */
export interface LifecycleStep {
  readonly nodeClaim: string;
  readonly node: string;
  /** What happened, for the log and metrics. */
  readonly transition: 'registered' | 'initialized';
  readonly nodeMetadata?: MetadataPatch;
  readonly nodeTaints?: TaintChange;
  readonly nodeFinalizer?: string;
  /** The Node's owner reference to its NodeClaim (when the claim's uid is known). */
  readonly nodeOwner?: NodeOwnerReference;
  readonly status: NodeClaimStatusUpdate;
}

const REGISTERED = 'Registered';
const INITIALIZED = 'Initialized';

/**
 * The next lifecycle step of `claim`, whose Node (joined by providerID) is `node`.
 *
 * Registration (registration.go `syncNode`): the Node gets the claim's labels and annotations,
 * `karpenter.sh/registered=true`, the termination finalizer, an owner reference to the claim
 * (pkg/utils/nodeclaim/nodeclaim.go `UpdateNodeOwnerReferences`: karpenter.sh/v1 NodeClaim,
 * name, uid, blockOwnerDeletion), and the claim's taints and
 * startup taints — unless the Node carries `karpenter.sh/do-not-sync-taints=true`, whose taints
 * its own bootstrap manages — and loses `karpenter.sh/unregistered:NoExecute` either way; the
 * claim records the node name and Registered=True.
 *
 * Initialization (initialization.go `Reconcile`): once the Node is Ready, none of the claim's
 * startup taints and none of the known ephemeral taints (`KnownEphemeralTaintsRemoved`: not-ready,
 * unreachable, uninitialized, unregistered) remain, and every extended resource the claim requested is reported allocatable, the Node is
 * labelled `karpenter.sh/initialized=true` and the claim gets Initialized=True.
 */
export function lifecycleStep(claim: NodeClaim, node: StateNode): LifecycleStep | undefined {
  if (claim.deletionTimestamp || node.deleting) return undefined;
  if (!conditionIsTrue(claim, REGISTERED)) return registration(claim, node);
  if (conditionIsTrue(claim, INITIALIZED)) return undefined;
  const pending = initializationBlocker(claim, node);
  if (pending) return undefined;
  return {
    nodeClaim: claim.name,
    node: node.name,
    transition: 'initialized',
    nodeMetadata: { labels: { [LABEL_INITIALIZED]: 'true' } },
    status: { conditions: [{ type: INITIALIZED, status: 'True' }] },
  };
}

function registration(claim: NodeClaim, node: StateNode): LifecycleStep {
  const syncTaints = node.labels[LABEL_DO_NOT_SYNC_TAINTS] !== 'true';
  const add: Taint[] = syncTaints
    ? [...claim.spec.taints, ...claim.spec.startupTaints].filter((t) => !hasTaint(node.taints, t))
    : [];
  return {
    nodeClaim: claim.name,
    node: node.name,
    transition: 'registered',
    nodeMetadata: {
      labels: { ...claim.labels, [LABEL_REGISTERED]: 'true' },
      annotations: { ...claim.annotations },
    },
    nodeTaints: { add, remove: [UNREGISTERED_TAINT] },
    nodeFinalizer: TERMINATION_FINALIZER,
    ...(claim.uid
      ? {
          nodeOwner: {
            apiVersion: 'karpenter.sh/v1',
            kind: 'NodeClaim',
            name: claim.name,
            uid: claim.uid,
            blockOwnerDeletion: true,
          },
        }
      : {}),
    status: { nodeName: node.name, conditions: [{ type: REGISTERED, status: 'True' }] },
  };
}

/** Why the Node is not initialized yet, or undefined when it is. */
export function initializationBlocker(claim: NodeClaim, node: StateNode): string | undefined {
  if (!node.ready) return 'node not ready';
  const startup = claim.spec.startupTaints.find((t) => hasTaint(node.taints, t));
  if (startup) return `startup taint ${startup.key}:${startup.effect} still on the node`;
  const ephemeral = node.taints.find(isKnownEphemeralTaint);
  if (ephemeral) return `known ephemeral taint ${formatTaint(ephemeral)} still on the node`;
  const standard = new Set([CPU, MEMORY, PODS, EPHEMERAL_STORAGE]);
  for (const [resource, quantity] of Object.entries(claim.spec.resources.requests)) {
    if (standard.has(resource) || quantity <= 0) continue;
    if (!((node.allocatable[resource] ?? 0) > 0)) return `extended resource ${resource} not reported yet`;
  }
  return undefined;
}

function hasTaint(taints: readonly Taint[], taint: Pick<Taint, 'key' | 'effect'>): boolean {
  return taints.some((t) => t.key === taint.key && t.effect === taint.effect);
}
