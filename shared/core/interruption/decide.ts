import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { parseProviderID } from '../model/nodeclaim';
import type { InterruptionMessage } from './messages';

/**
 * What the interruption loop does about one message, as aws/karpenter-provider-aws
 * pkg/controllers/interruption/utils.go `InterruptionHandler.handleNodeClaim` does:
 * `actionForMessage` makes spot and capacity-reservation interruption warnings, AWS Health
 * scheduled changes and stopped or terminated instances CordonAndDrain (the NodeClaim is
 * deleted and termination drains it) and everything else — a rebalance recommendation — NoAction;
 * `notifyForMessage` records one Event per kind on the NodeClaim and its Node;
 * `markUnavailableOfferings` marks a spot warning's offering unavailable (podlift also marks a
 * capacity-reservation warning's, where Karpenter marks the reservation). Before the delete,
 * podlift cordons the Node with `karpenter.sh/disrupted:NoSchedule` and launches replacement
 * capacity for its pods in the same invocation (Karpenter's provisioner sees the deleting node's
 * pods instead). A stopped or terminated instance's NodeClaim is deleted at once. A rebalance
 * recommendation is only its Event unless `REBALANCE_ACTION=replace` asks for a replacement (a
 * podlift option; Karpenter has none). NodeClaims already being deleted are left to termination,
 * so duplicates and a warning followed by its state change converge on one replacement.
 */

/** How rebalance recommendations are treated (`REBALANCE_ACTION`). */
export type RebalanceAction = 'event' | 'replace';

/** The decision for one NodeClaim named by a message. */
export interface InterruptionDecision {
  readonly nodeClaim: string;
  readonly node?: string;
  /** Offering to mark unavailable, from the claim's labels. */
  readonly unavailable?: {
    readonly instanceType: string;
    readonly zone: string;
    readonly capacityType: string;
  };
  /** Taint the Node and record the interruption on the NodeClaim. */
  readonly cordon?: { readonly annotation: string };
  /** Launch replacement capacity before the NodeClaim is deleted. */
  readonly replace: boolean;
  readonly deleteNodeClaim: boolean;
  /** The Kubernetes Event recorded on the NodeClaim and its Node (Karpenter's `notifyForMessage`). */
  readonly event: InterruptionEvent;
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
    if (!claim || claim.deletionTimestamp) return [];
    return [decideFor(message.kind, claim, rebalance, now)];
  });
}

function decideFor(
  kind: ActionableKind,
  claim: NodeClaim,
  rebalance: RebalanceAction,
  now: number,
): InterruptionDecision {
  const base = {
    nodeClaim: claim.name,
    ...(claim.status.nodeName ? { node: claim.status.nodeName } : {}),
    event: INTERRUPTION_EVENTS[kind],
  };
  const cordon = { annotation: JSON.stringify({ kind, time: new Date(now).toISOString() }) };
  switch (kind) {
    case 'spot-interruption':
    case 'capacity-reservation-interruption': {
      const offering = offeringOf(claim);
      return {
        ...base,
        ...(offering ? { unavailable: offering } : {}),
        cordon,
        replace: true,
        deleteNodeClaim: true,
      };
    }
    case 'scheduled-change':
      return { ...base, cordon, replace: true, deleteNodeClaim: true };
    case 'rebalance-recommendation':
      // Karpenter's actionForMessage: NoAction. Only the Event, unless configured to replace.
      return rebalance === 'replace'
        ? { ...base, cordon, replace: true, deleteNodeClaim: true }
        : { ...base, replace: false, deleteNodeClaim: false };
    case 'instance-stopped':
    case 'instance-terminated':
      return { ...base, replace: false, deleteNodeClaim: true };
  }
}

function offeringOf(claim: NodeClaim) {
  const instanceType = claim.labels[LABEL_INSTANCE_TYPE];
  const zone = claim.labels[LABEL_ZONE];
  const capacityType = claim.labels[LABEL_CAPACITY_TYPE];
  return instanceType && zone && capacityType ? { instanceType, zone, capacityType } : undefined;
}
