import type { DisruptionReason } from '../../shared/core/disruption/budgets';
import { parseNodePool } from '../../shared/core/manifests/nodepool-schema';
import { budgetActive, parseBudgetSchedule } from '../../shared/core/model/budget-schedule';
import { durationMs } from '../../shared/core/model/duration';
import { ANNOTATIONS, LABEL_NODEPOOL } from '../../shared/core/model/labels';
import type { NodePool } from '../../shared/core/model/nodepool';

// biome-ignore lint/suspicious/noExplicitAny: the checker reads the API server's untyped JSON
type Json = Record<string, any>;

/** What the API server holds when the check runs. */
export interface NodeBudgetCheckInput {
  readonly nodeClaims: readonly Json[];
  readonly nodes: readonly Json[];
  readonly nodePools: readonly Json[];
  readonly now: number;
}

/**
 * No disruption command takes more of a NodePool's nodes at once than its budgets allow. A
 * budget's `nodes` bounds how many of the NodePool's nodes are disrupting at once — Karpenter counts
 * the initialized NodeClaims with a registered Node as the NodePool's nodes, and of them those
 * deleting, not Ready or under a command as disrupting (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/helpers.go `BuildDisruptionBudgetMapping`) — so when a command is
 * first seen, the NodeClaims under a command in its NodePool, its own and those of the commands
 * still running, deleting or not, must be no more than the budget for the command's reason over
 * the NodePool's nodes at that instant. Checked once per command, when its marks appear (a command
 * is recorded on all its candidates within one invocation): nodes that go later do not make an
 * older command a violation. Not Ready nodes are left out of the count, so a command that
 * Karpenter's accounting would refuse because of them passes (podlift's `GlobalConsolidation` gate
 * charges a not-Ready candidate once, on purpose); what this catches is a command that marks more
 * nodes than the budget, or that ignores the commands in flight.
 */
export class NodeBudgetInvariant {
  private readonly seen = new Set<string>();

  /** Violations of the commands first seen now, each named. */
  check(input: NodeBudgetCheckInput): string[] {
    const found: string[] = [];
    const fresh = new Map<string, { pool: string; reason: DisruptionReason }>();
    const marked = new Map<string, number>();
    for (const claim of input.nodeClaims) {
      const command = commandOf(claim);
      const pool = claim.metadata?.labels?.[LABEL_NODEPOOL];
      if (!command || typeof pool !== 'string') continue;
      marked.set(pool, (marked.get(pool) ?? 0) + 1);
      if (!this.seen.has(command.id)) fresh.set(command.id, { pool, reason: command.reason });
    }
    if (fresh.size === 0) return found;
    const pools = new Map<string, NodePool>();
    for (const obj of input.nodePools) {
      try {
        const pool = parseNodePool(obj);
        pools.set(pool.name, pool);
      } catch {
        // A NodePool the functions reject launches and disrupts nothing.
      }
    }
    const nodes = poolNodes(input.nodeClaims, input.nodes);
    for (const [id, { pool, reason }] of fresh) {
      this.seen.add(id);
      const nodePool = pools.get(pool);
      if (!nodePool) continue;
      const total = nodes.get(pool) ?? 0;
      const allowed = budgetNodes(nodePool, reason, total, input.now);
      const count = marked.get(pool) ?? 0;
      if (count > allowed)
        found.push(
          `NodePool ${pool}: command ${id} (${reason}) leaves ${count} node(s) under disruption commands at once, over its budget of ${allowed} of ${total} node(s)`,
        );
    }
    return found;
  }
}

/**
 * How many of a NodePool's `total` nodes may be disrupting at once for `reason`, worked out here
 * rather than by the disruption function's own arithmetic (only the schedule is read with its
 * parser): the smallest of the budgets active now that name the reason or none — a count, or a
 * percentage of the nodes rounded up (kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go
 * `GetAllowedDisruptions`: `GetScaledValueFromIntOrPercent(…, numNodes, true)`); no such budget,
 * no bound.
 */
export function budgetNodes(pool: NodePool, reason: DisruptionReason, total: number, now: number): number {
  let allowed = Number.POSITIVE_INFINITY;
  for (const budget of pool.disruption.budgets) {
    if (budget.reasons && !budget.reasons.includes(reason)) continue;
    if (
      budget.schedule &&
      !budgetActive(parseBudgetSchedule(budget.schedule), durationMs(budget.duration ?? '0s') ?? 0, now)
    )
      continue;
    const percent = budget.nodes.endsWith('%') ? Number(budget.nodes.slice(0, -1)) : undefined;
    allowed = Math.min(
      allowed,
      percent === undefined ? Number(budget.nodes) : Math.ceil((total * percent) / 100),
    );
  }
  return allowed;
}

/** The command recorded on a NodeClaim: its id and reason, when they parse. */
function commandOf(claim: Json): { id: string; reason: DisruptionReason } | undefined {
  const text = claim.metadata?.annotations?.[ANNOTATIONS.disruptionCommand];
  if (typeof text !== 'string') return undefined;
  try {
    const { id, reason } = JSON.parse(text) as { id?: unknown; reason?: unknown };
    return typeof id === 'string' && typeof reason === 'string'
      ? { id, reason: reason as DisruptionReason }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Each NodePool's nodes as its budgets count them: initialized NodeClaims whose Node registered. */
function poolNodes(nodeClaims: readonly Json[], nodes: readonly Json[]): Map<string, number> {
  const registered = new Set(nodes.map((n) => n.spec?.providerID).filter((id) => typeof id === 'string'));
  const counts = new Map<string, number>();
  for (const claim of nodeClaims) {
    const pool = claim.metadata?.labels?.[LABEL_NODEPOOL];
    const initialized = (claim.status?.conditions ?? []).some(
      (c: Json) => c.type === 'Initialized' && c.status === 'True',
    );
    if (typeof pool !== 'string' || !initialized || !registered.has(claim.status?.providerID)) continue;
    counts.set(pool, (counts.get(pool) ?? 0) + 1);
  }
  return counts;
}
