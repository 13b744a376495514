import type { NodeClaim } from '../model/nodeclaim';
import type { EventInput } from '../ports/cluster-events';
import type { DisruptionReason } from './budgets';

/**
 * The Events of a disruption command's candidate being deleted, reason and message as
 * kubernetes-sigs/karpenter pkg/controllers/disruption/events/events.go `Terminating` writes them
 * (published by queue.go once the NodeClaim's delete succeeded): `DisruptionTerminating` on the
 * Node, when it has one, and on the NodeClaim. The reasons are already title case.
 */
export function disruptionTerminating(
  claim: NodeClaim,
  node: string | undefined,
  reason: DisruptionReason,
): EventInput[] {
  const claimObject = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    name: claim.name,
    ...(claim.uid ? { uid: claim.uid } : {}),
  };
  return [
    ...(node
      ? [
          {
            object: { apiVersion: 'v1', kind: 'Node', name: node },
            type: 'Normal' as const,
            reason: 'DisruptionTerminating',
            message: `Disrupting Node: ${reason}`,
          },
        ]
      : []),
    {
      object: claimObject,
      type: 'Normal',
      reason: 'DisruptionTerminating',
      message: `Disrupting NodeClaim: ${reason}`,
    },
  ];
}
