import type { LabelSelector } from '../model/label-selector';
import type { Pod } from '../model/pod';
import { formatQuantity } from '../model/quantity';
import type { Resources } from '../model/resources';
import { formatTaint, type Taint } from '../model/taints';

/**
 * Why one NodePool cannot launch a node for a pod. Printed after `NodePool <name>: ` (see
 * {@link formatReason}), so none of these repeats the NodePool's name.
 */
export type NodePoolRejection =
  /** The NodePool's nodeClassRef names a node class that does not exist. */
  | { readonly kind: 'node-class-not-found'; readonly nodeClassKind: string; readonly nodeClassName: string }
  /** None of the NodePool's instance types has an available offering under its requirements. */
  | { readonly kind: 'no-offered-instance-type' }
  | { readonly kind: 'untolerated-taint'; readonly taint: Taint }
  /** The pod's node requirements conflict with the NodePool's; `detail` says which label. */
  | { readonly kind: 'incompatible-requirements'; readonly detail: string }
  /** No instance type of the NodePool satisfies NodePool ∩ pod requirements (their text, '' for none). */
  | { readonly kind: 'no-instance-type-satisfies'; readonly requirements: string }
  /** Topology pins a key to allowed domains, and the NodePool offers none of them. */
  | { readonly kind: 'no-allowed-domain-offered'; readonly topologyKeys: readonly string[] }
  | { readonly kind: 'no-instance-type-in-domain' }
  /** No instance type holds one pod's requests plus the DaemonSets that would run beside it. */
  | {
      readonly kind: 'no-room-for-requests';
      readonly requests: Resources;
      readonly daemonSetOverhead: Resources;
    }
  /** Every instance type that would hold the pod takes the NodePool over `resource`'s limit. */
  | { readonly kind: 'limit-reached'; readonly resource: string; readonly limit: number }
  /** Growing a new node to hold the pod takes the NodePool over `resource`'s limit. */
  | { readonly kind: 'limit-reached-by-node'; readonly resource: string }
  /** The node's remaining instance type options and the pod's requirements have nothing in common. */
  | { readonly kind: 'no-compatible-option' }
  | { readonly kind: 'no-option-has-room' }
  /** Finalising a node: no instance type is compatible with its requirements any more. */
  | { readonly kind: 'no-instance-type-fits' }
  | { readonly kind: 'no-available-offering' }
  | { readonly kind: 'no-instance-type-holds-pods' }
  /** A requirement's minValues cannot be met by the instance types that fit. */
  | {
      readonly kind: 'min-values';
      readonly key: string;
      readonly minValues: number;
      readonly available: number;
    };

/**
 * Why a pod could not be scheduled, as data: callers (the affinity retry, consolidation's
 * simulation, logs) branch on `kind`; {@link formatReason} turns it into the message users read.
 */
export type UnschedulableReason =
  | { readonly kind: 'no-nodepool' }
  /** Every NodePool carries a taint the pod does not tolerate, and it is the same taint. */
  | { readonly kind: 'no-nodepool-tolerates-taint'; readonly taint: Taint }
  | { readonly kind: 'nodepool'; readonly nodePool: string; readonly rejection: NodePoolRejection }
  /** Each NodePool said no for its own reason; printed joined by `; `. */
  | { readonly kind: 'every-nodepool-rejected'; readonly reasons: readonly UnschedulableReason[] }
  /** Required pod affinity whose selector matches no pod (yet): the pod is retried once more. */
  | { readonly kind: 'no-affinity-match'; readonly topologyKey: string; readonly selector: LabelSelector }
  /** Required pod affinity per node: the nodes running matching pods are full. */
  | { readonly kind: 'affinity-nodes-full'; readonly topologyKey: string; readonly selector: LabelSelector }
  /** Per-node spread or anti-affinity leaves no room on a new node. */
  | { readonly kind: 'hostname-rules'; readonly topologyKey: string }
  | { readonly kind: 'spread-unsatisfiable'; readonly topologyKey: string; readonly maxSkew: number }
  | { readonly kind: 'affinity-unsatisfiable'; readonly topologyKey: string }
  /** The pod's own required anti-affinity: every eligible domain already has a matching pod. */
  | { readonly kind: 'anti-affinity'; readonly topologyKey: string }
  /** Required anti-affinity of pods already placed repels the pod from every eligible domain. */
  | { readonly kind: 'existing-anti-affinity'; readonly topologyKey: string };

/** The message for a reason: the text `podlift plan` prints and the tests compare. */
export function formatReason(reason: UnschedulableReason): string {
  switch (reason.kind) {
    case 'no-nodepool':
      return 'no NodePool exists';
    case 'no-nodepool-tolerates-taint':
      return `no NodePool tolerates taint ${formatTaint(reason.taint)}`;
    case 'nodepool':
      return `NodePool ${reason.nodePool}: ${formatRejection(reason.rejection)}`;
    case 'every-nodepool-rejected':
      return reason.reasons.map(formatReason).join('; ');
    case 'no-affinity-match':
      return `required pod affinity matches no pod on ${reason.topologyKey}: ${JSON.stringify(reason.selector)}`;
    case 'affinity-nodes-full':
      return `pod affinity on ${reason.topologyKey}: the nodes running pods that match ${JSON.stringify(
        reason.selector,
      )} have no room`;
    case 'hostname-rules':
      return `topology rules on ${reason.topologyKey} rule out a new node`;
    case 'spread-unsatisfiable':
      return `topology spread on ${reason.topologyKey} (maxSkew ${reason.maxSkew}) cannot be satisfied: no domain keeps the skew`;
    case 'affinity-unsatisfiable':
      return `pod affinity on ${reason.topologyKey} cannot be satisfied`;
    case 'anti-affinity':
      return `pod anti-affinity on ${reason.topologyKey}: every eligible domain has a matching pod`;
    case 'existing-anti-affinity':
      return `anti-affinity of existing pods on ${reason.topologyKey}: every eligible domain has a matching pod`;
  }
}

function formatRejection(rejection: NodePoolRejection): string {
  switch (rejection.kind) {
    case 'node-class-not-found':
      return `${rejection.nodeClassKind} ${rejection.nodeClassName} not found`;
    case 'no-offered-instance-type':
      return 'no instance type with an available offering satisfies its requirements';
    case 'untolerated-taint':
      return `taint ${formatTaint(rejection.taint)} not tolerated`;
    case 'incompatible-requirements':
      return rejection.detail;
    case 'no-instance-type-satisfies':
      return `no instance type satisfies ${rejection.requirements || 'its requirements'}`;
    case 'no-allowed-domain-offered':
      return `no allowed topology domain (${rejection.topologyKeys.join(', ')}) is offered`;
    case 'no-instance-type-in-domain':
      return 'no instance type offered in the required domain';
    case 'no-room-for-requests': {
      const overhead = Object.keys(rejection.daemonSetOverhead).length > 0;
      return `no instance type has room for requests ${formatResources(rejection.requests)}${
        overhead ? ` plus DaemonSet overhead ${formatResources(rejection.daemonSetOverhead)}` : ''
      }`;
    }
    case 'limit-reached':
      return `limit ${rejection.resource}=${formatQuantity(rejection.resource, rejection.limit)} reached`;
    case 'limit-reached-by-node':
      return `limit ${rejection.resource} reached`;
    case 'no-compatible-option':
      return 'no instance type option is compatible';
    case 'no-option-has-room':
      return 'no instance type option has room';
    case 'no-instance-type-fits':
      return 'no instance type fits';
    case 'no-available-offering':
      return 'no instance type that fits has an available offering';
    case 'no-instance-type-holds-pods':
      return 'no instance type holds the pods and DaemonSet overhead';
    case 'min-values':
      return `minValues ${rejection.minValues} for ${rejection.key} not satisfied: only ${rejection.available} value(s) among instance types that fit`;
  }
}

function formatResources(r: Resources): string {
  return Object.entries(r)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k}=${formatQuantity(k, v)}`)
    .join(', ');
}

/** Whether `reason`, or any NodePool's reason it gathers, satisfies `test`. */
export function someReason(reason: UnschedulableReason, test: (r: UnschedulableReason) => boolean): boolean {
  if (test(reason)) return true;
  return reason.kind === 'every-nodepool-rejected' && reason.reasons.some((r) => someReason(r, test));
}

/** The unschedulable entries for pods that failed for one reason (formatted once for all of them). */
export function unschedulablePods(pods: readonly Pod[], cause: UnschedulableReason): UnschedulablePod[] {
  const reason = formatReason(cause);
  return pods.map((pod) => ({ pod, cause, reason }));
}

/** A pod the scheduler could not place, with why: as data and as the message users read. */
export interface UnschedulablePod {
  readonly pod: Pod;
  /** Why, as data to branch on. */
  readonly cause: UnschedulableReason;
  /** `formatReason(cause)`: the message `podlift plan` prints. */
  readonly reason: string;
}
