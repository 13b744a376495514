import { ANNOTATIONS } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';

/**
 * The disruption command recorded on its candidates' NodeClaims (`podlift.dev/disruption-command`,
 * JSON), as Karpenter's orchestration queue keeps a command per candidate (queue.go
 * `ProviderIDToCommand`).
 */

/**
 * The shortest time a started command may wait for its replacements (queue.go `minRetryDuration`;
 * commands-in-flight.ts `commandTimeoutMs`).
 */
export const MIN_COMMAND_TIMEOUT_MS = 10 * 60_000;

/** Whether the NodeClaim is a candidate of a recorded command. */
export function underCommand(claim: Pick<NodeClaim, 'annotations'>): boolean {
  return claim.annotations[ANNOTATIONS.disruptionCommand] !== undefined;
}

/** The id of the command recorded on the NodeClaim, when one that parses is. */
export function commandIdOf(claim: Pick<NodeClaim, 'annotations'>): string | undefined {
  const text = claim.annotations[ANNOTATIONS.disruptionCommand];
  if (!text) return undefined;
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
