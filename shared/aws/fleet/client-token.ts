import { createHash } from 'node:crypto';
import type { NodeClaim } from '../../core/model/nodeclaim';

/** CreateFleet's ClientToken limit: at most 64 ASCII characters. */
export const MAX_CLIENT_TOKEN_LENGTH = 64;

/**
 * The CreateFleet ClientToken for a NodeClaim: `podlift-` and 56 hex digits of
 * SHA-256(name, uid), so it is deterministic (a retried or repeated launch gets EC2's first
 * answer instead of a second instance), fits EC2's 64 characters whatever the name's length,
 * and changes when a NodeClaim is deleted and recreated under the same name (new uid).
 */
export function fleetClientToken(nodeClaim: Pick<NodeClaim, 'name' | 'uid'>): string {
  const digest = createHash('sha256')
    .update(`${nodeClaim.name}\u0000${nodeClaim.uid ?? ''}`)
    .digest('hex');
  return `podlift-${digest}`.slice(0, MAX_CLIENT_TOKEN_LENGTH);
}
