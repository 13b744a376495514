import { LABEL_CAPACITY_RESERVATION_ID, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { parseProviderID } from '../model/nodeclaim';
import type { InterruptionMessage } from './messages';

/**
 * What the interruption loop does about one message, as aws/karpenter-provider-aws
 * pkg/controllers/interruption/utils.go `InterruptionHandler.handleNodeClaim` does:
 * `actionForMessage` makes spot and capacity-reservation interruption warnings, AWS Health
 * scheduled changes and stopped or terminated instances CordonAndDrain (the NodeClaim is
 * deleted at once and termination drains it) and everything else — a rebalance recommendation —
 * NoAction; `notifyForMessage` records one Event per kind on the NodeClaim and its Node;
 * `markUnavailableOfferings` marks a spot warning's spot offering unavailable. None of it waits
 * for the cluster Lease: only the replacement launch (a provisioner run, `replace`) needs it,
 * and when it cannot run now the provisioner's next run finds the pods anyway, because they sit
 * on a node tainted `karpenter.sh/disrupted:NoSchedule` (core/provisioning/pods-to-provision.ts,
 * Karpenter's provisioner seeing a deleting node's pods). A stopped or terminated instance's
 * NodeClaim is deleted without a replacement run of its own. A rebalance recommendation is only
 * its Event unless `REBALANCE_ACTION=replace` asks for a replacement (a podlift option;
 * Karpenter has none). A NodeClaim already being deleted still gets the Event and the mark, as
 * in Karpenter (`deleteNodeClaim` returns early, the rest of `handleNodeClaim` runs), but is not
 * cordoned, deleted or replaced again: duplicates, redeliveries and a warning followed by its
 * state change converge on one delete and one replacement.
 */

/** How rebalance recommendations are treated (`REBALANCE_ACTION`). */
export type RebalanceAction = 'event' | 'replace';

/** The decision for one NodeClaim named by a message. */
export interface InterruptionDecision {
  readonly nodeClaim: string;
  readonly node?: string;
  /**
   * The offering to mark unavailable, from the claim's labels: spot for a spot warning, the
   * reservation's for a capacity-reservation warning.
   */
  readonly unavailable?: UnavailableSpotOffering;
  /** Taint the Node and record the interruption on the NodeClaim, before the delete. */
  readonly cordon?: { readonly annotation: string };
  /** Run the provisioner now for the node's pods (the only step that needs the cluster Lease). */
  readonly replace: boolean;
  /** Delete the NodeClaim now, whatever the Lease: termination drains and terminates it. */
  readonly deleteNodeClaim: boolean;
  /** The Kubernetes Event recorded on the NodeClaim and its Node (Karpenter's `notifyForMessage`). */
  readonly event: InterruptionEvent;
}

/** An offering an interruption warning reclaims: spot, or a reservation's (`reserved`). */
export interface UnavailableSpotOffering {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: 'spot' | 'reserved';
}

/** An Event about an interruption. */
export interface InterruptionEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

type ActionableKind = Exclude<InterruptionMessage['kind'], 'unknown' | 'no-action'>;

/**
 * The Event of each kind, reason and message as aws/karpenter-provider-aws
 * pkg/controllers/interruption/events/events.go words them.
 */
export const INTERRUPTION_EVENTS: Readonly<Record<ActionableKind, InterruptionEvent>> = {
  'spot-interruption': {
    type: 'Warning',
    reason: 'SpotInterrupted',
    message: 'Spot interruption warning was triggered',
  },
  'capacity-reservation-interruption': {
    type: 'Warning',
    reason: 'CapacityReservationInstanceInterrupted',
    message: 'Capacity Reservation interruption warning was triggered',
  },
  'rebalance-recommendation': {
    type: 'Normal',
    reason: 'SpotRebalanceRecommendation',
    message: 'Spot rebalance recommendation was triggered',
  },
  'scheduled-change': {
    type: 'Warning',
    reason: 'InstanceUnhealthy',
    message: 'An unhealthy warning was triggered for the instance',
  },
  'instance-stopped': { type: 'Warning', reason: 'InstanceStopping', message: 'Instance is stopping' },
  'instance-terminated': {
    type: 'Warning',
    reason: 'InstanceTerminating',
    message: 'Instance is terminating',
  },
};

/**
 * events.go `TerminatingOnInterruption`, recorded on the NodeClaim and its Node once an
 * interruption (utils.go `deleteNodeClaim`) or an instance's health deletes the NodeClaim.
 */
export const TERMINATING_ON_INTERRUPTION_EVENT: InterruptionEvent = {
  type: 'Warning',
  reason: 'TerminatingOnInterruption',
  message: 'Interruption triggered termination for the NodeClaim',
};

/** The Event as recorded on the Node: events.go words `TerminatingOnInterruption` for the Node. */
export function onNode(event: InterruptionEvent): InterruptionEvent {
  return event.reason === TERMINATING_ON_INTERRUPTION_EVENT.reason
    ? { ...event, message: 'Interruption triggered termination for the Node' }
    : event;
}

/** The NodeClaims of this cluster a message is about, by instance id (others are not ours). */
export function claimsByInstance(claims: readonly NodeClaim[]): Map<string, NodeClaim> {
  const byInstance = new Map<string, NodeClaim>();
  for (const claim of claims) {
    const id = claim.status.providerID ? parseProviderID(claim.status.providerID)?.instanceId : undefined;
    if (id) byInstance.set(id, claim);
  }
  return byInstance;
}

/** The decisions for a classified message, one per NodeClaim of the cluster it names. */
export function decideInterruption(
  message: InterruptionMessage,
  byInstance: ReadonlyMap<string, NodeClaim>,
  rebalance: RebalanceAction,
  now: number,
): InterruptionDecision[] {
  if (message.kind === 'unknown' || message.kind === 'no-action') return [];
  return message.instanceIds.flatMap((instanceId) => {
    const claim = byInstance.get(instanceId);
    return claim ? [decideFor(message.kind, claim, rebalance, now)] : [];
  });
}

function decideFor(
  kind: ActionableKind,
  claim: NodeClaim,
  rebalance: RebalanceAction,
  now: number,
): InterruptionDecision {
  const unavailable =
    kind === 'spot-interruption'
      ? spotOfferingOf(claim)
      : kind === 'capacity-reservation-interruption'
        ? reservedOfferingOf(claim)
        : undefined;
  const notify = {
    nodeClaim: claim.name,
    ...(claim.status.nodeName ? { node: claim.status.nodeName } : {}),
    ...(unavailable ? { unavailable } : {}),
    event: INTERRUPTION_EVENTS[kind],
    replace: false,
    deleteNodeClaim: false,
  };
  // Karpenter's deleteNodeClaim: nothing more for a NodeClaim already being deleted.
  if (claim.deletionTimestamp) return notify;
  const drain = {
    ...notify,
    cordon: { annotation: JSON.stringify({ kind, time: new Date(now).toISOString() }) },
    replace: true,
    deleteNodeClaim: true,
  };
  switch (kind) {
    case 'spot-interruption':
    case 'capacity-reservation-interruption':
    case 'scheduled-change':
      return drain;
    case 'rebalance-recommendation':
      // Karpenter's actionForMessage: NoAction. Only the Event, unless configured to replace.
      return rebalance === 'replace' ? drain : notify;
    case 'instance-stopped':
    case 'instance-terminated':
      // The instance is already going: only the delete (Karpenter's CordonAndDrain is only that);
      // termination taints the Node as it drains, and the provisioner's next run finds its pods.
      return { ...notify, deleteNodeClaim: true };
  }
}

/**
 * The offering a spot warning reclaims, as Karpenter's `markUnavailableOfferings`
 * (aws/karpenter-provider-aws pkg/controllers/interruption/utils.go) marks it: the claim's
 * instance type and zone, capacity type spot — whatever the claim's own capacity-type label, so a
 * warning naming an on-demand node marks the spot offering of its type and zone, never the node's
 * own on-demand offering.
 */
function spotOfferingOf(claim: NodeClaim): UnavailableSpotOffering | undefined {
  const instanceType = claim.labels[LABEL_INSTANCE_TYPE];
  const zone = claim.labels[LABEL_ZONE];
  return instanceType && zone ? { instanceType, zone, capacityType: 'spot' } : undefined;
}

/**
 * What a capacity-reservation warning marks: Karpenter marks the claim's reservation
 * (`capacityReservationProvider.MarkUnavailable` on `karpenter.k8s.aws/capacity-reservation-id`,
 * utils.go markUnavailableOfferings); podlift marks the reserved offering of the claim's type and
 * zone, how its reservations' refusals are kept (reserved-offerings.ts). Nothing for a claim that
 * is not in a reservation.
 */
function reservedOfferingOf(claim: NodeClaim): UnavailableSpotOffering | undefined {
  if (claim.labels[LABEL_CAPACITY_RESERVATION_ID] === undefined) return undefined;
  const instanceType = claim.labels[LABEL_INSTANCE_TYPE];
  const zone = claim.labels[LABEL_ZONE];
  return instanceType && zone ? { instanceType, zone, capacityType: 'reserved' } : undefined;
}
