import type { DisruptionCommand } from '../../shared/core/disruption/methods';
import { ANNOTATIONS } from '../../shared/core/model/labels';
import type { NodeClaim } from '../../shared/core/model/nodeclaim';

/** A command as recorded on its candidates, with its candidates' and replacements' NodeClaims. */
export interface RecordedCommand {
  readonly command: DisruptionCommand;
  readonly candidates: readonly NodeClaim[];
  readonly replacements: readonly NodeClaim[];
}

/**
 * The commands recorded in the cluster: the `podlift.dev/disruption-command` annotation of each
 * candidate NodeClaim, and the NodeClaims annotated `podlift.dev/replaces=<id>`. An annotation
 * that does not parse is ignored (and cleared by the loop).
 */
export function recordedCommands(claims: readonly NodeClaim[]): {
  commands: RecordedCommand[];
  unreadable: string[];
} {
  const byId = new Map<string, { command: DisruptionCommand; candidates: NodeClaim[] }>();
  const unreadable: string[] = [];
  for (const claim of claims) {
    const text = claim.annotations[ANNOTATIONS.disruptionCommand];
    if (!text) continue;
    try {
      const command = JSON.parse(text) as DisruptionCommand;
      if (typeof command.id !== 'string' || !Array.isArray(command.candidates))
        throw new Error('not a command');
      const entry = byId.get(command.id) ?? { command, candidates: [] };
      entry.candidates.push(claim);
      byId.set(command.id, entry);
    } catch {
      unreadable.push(claim.name);
    }
  }
  const commands = [...byId.values()].map(({ command, candidates }) => ({
    command,
    candidates,
    replacements: claims.filter((c) => c.annotations[ANNOTATIONS.replaces] === command.id),
  }));
  return { commands, unreadable };
}
