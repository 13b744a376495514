import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import { parseProviderID } from '../model/nodeclaim';
import type { InterruptionMessage } from './messages';

/**
 * What the interruption loop does about one message (aws/karpenter-provider-aws
 * pkg/controllers/interruption/controller.go `handleNodeClaim`): for a spot or capacity
 * reservation interruption warning, the offering is marked unavailable so nothing replaces the
 * node in the same pool; for those and an AWS Health scheduled change the node is cordoned with
 * `karpenter.sh/disrupted:NoSchedule`, replacement capacity is launched for its pods, and then
 * its NodeClaim is deleted (termination drains it). A stopped or terminated instance's NodeClaim
 * is deleted at once. A rebalance recommendation is an Event, or a replacement when configured.
 * NodeClaims already being deleted are left to termination, so duplicates and a warning
 * followed by its state change converge on one replacement.
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
  /** A Kubernetes Event on the Node instead of any action. */
  readonly event?: { readonly reason: string; readonly message: string };
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
    if (!claim || claim.deletionTimestamp) return [];
    return [decideFor(message.kind, claim, rebalance, now)];
  });
}

function decideFor(
  kind: Exclude<InterruptionMessage['kind'], 'unknown' | 'no-action'>,
  claim: NodeClaim,
  rebalance: RebalanceAction,
  now: number,
): InterruptionDecision {
  const base = { nodeClaim: claim.name, ...(claim.status.nodeName ? { node: claim.status.nodeName } : {}) };
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
      return rebalance === 'replace'
        ? { ...base, cordon, replace: true, deleteNodeClaim: true }
        : {
            ...base,
            replace: false,
            deleteNodeClaim: false,
            event: {
              reason: 'RebalanceRecommendation',
              message:
                'EC2 recommends rebalancing this spot instance: it is at elevated risk of interruption',
            },
          };
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
