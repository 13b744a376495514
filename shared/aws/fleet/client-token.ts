import { createHash } from 'node:crypto';
import type { CreateFleetCommandInput } from '@aws-sdk/client-ec2';
import { UNAVAILABLE_OFFERING_TTL_MS } from '../../core/catalog/unavailable-offerings';
import type { NodeClaim } from '../../core/model/nodeclaim';

/** CreateFleet's ClientToken limit: at most 64 ASCII characters. */
export const MAX_CLIENT_TOKEN_LENGTH = 64;

/**
 * How long one ClientToken stands for an unchanged request: the offerings' TTL. EC2 keeps a
 * token, and the answer it gave, failed fleets included, for at least 24 hours; a NodeClaim
 * retried with the very same request once its refused offerings are available again must get
 * a fresh answer, not the stored refusal.
 */
export const CLIENT_TOKEN_WINDOW_MS = UNAVAILABLE_OFFERING_TTL_MS;

/** What one launch's ClientToken is derived from. */
export interface ClientTokenInput {
  readonly nodeClaim: Pick<NodeClaim, 'name' | 'uid'>;
  /** The CreateFleet request, without its token. */
  readonly request: Omit<CreateFleetCommandInput, 'ClientToken'>;
  /** When it is sent (epoch ms). */
  readonly now: number;
  /**
   * Instances the NodeClaim had that no longer serve it (shutting down, terminated): a launch
   * replacing them must not get their fleet's answer back. @default none
   */
  readonly replaces?: readonly string[];
}

/**
 * The CreateFleet ClientToken for one launch of a NodeClaim: `podlift-` and 56 hex digits of
 * SHA-256 over the NodeClaim's name and uid, the request itself, the instances it replaces and
 * the {@link CLIENT_TOKEN_WINDOW_MS} window it is sent in. A repeated or retried identical
 * request gets EC2's first answer instead of a second instance; a request that changed (a
 * launch template recreated under a new id, offerings refused since) gets a new token instead
 * of IdempotentParameterMismatch, which is why the launcher looks the NodeClaim's instance up by
 * its tag before every launch. Fits EC2's 64 characters whatever the name's length, and changes
 * when a NodeClaim is deleted and recreated under the same name (new uid).
 */
export function fleetClientToken(input: ClientTokenInput): string {
  const { nodeClaim, request, now, replaces = [] } = input;
  const digest = createHash('sha256')
    .update(
      [
        nodeClaim.name,
        nodeClaim.uid ?? '',
        JSON.stringify(request),
        [...replaces].sort().join(','),
        Math.floor(now / CLIENT_TOKEN_WINDOW_MS),
      ].join('\u0000'),
    )
    .digest('hex');
  return `podlift-${digest}`.slice(0, MAX_CLIENT_TOKEN_LENGTH);
}
