import { ANNOTATIONS } from '../model/labels';
import type { NodeClaim } from '../model/nodeclaim';
import type { Candidate } from './candidates';

/**
 * The order single-node consolidation walks its candidates in, and where a walk cut short by its
 * time budget goes on (kubernetes-sigs/karpenter
 * pkg/controllers/disruption/singlenodeconsolidation.go `ComputeCommands`,
 * `SingleNodeConsolidationTimeoutDuration`, `SortCandidates`, `shuffleCandidates`).
 */

/**
 * `shuffleCandidates`: the candidates (already in consolidation order) interleaved by NodePool —
 * the first of each NodePool, then the second of each, … — so one large NodePool cannot keep the
 * others from ever being looked at; NodePools in the order their first candidate comes.
 */
export function interleaveByNodePool(ordered: readonly Candidate[]): Candidate[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of ordered) {
    const list = byPool.get(c.pool.name);
    if (list) list.push(c);
    else byPool.set(c.pool.name, [c]);
  }
  const lists = [...byPool.values()];
  const out: Candidate[] = [];
  // Round i takes the i-th of every NodePool that has one, until all are taken.
  for (let i = 0; out.length < ordered.length; i++)
    for (const list of lists) if (i < list.length) out.push(list[i]);
  return out;
}

/**
 * The walk's order starting at the candidate the last run marked
 * ({@link ANNOTATIONS.consolidationResume}), the ones before it after the rest; from the top
 * when none is marked or the marked one is no longer a candidate. Karpenter restarts from the top
 * and only puts the NodePools it did not reach first (`PreviouslyUnseenNodePools`); each podlift
 * run is a new invocation with its own budget, so it goes on where the last one stopped, which
 * reaches those NodePools first as well and every candidate in turn.
 */
export function resumeOrder(order: readonly Candidate[]): Candidate[] {
  // findIndex's -1 (none marked) starts at the top, as a mark on the first one does.
  const start = Math.max(
    0,
    order.findIndex((c) => c.claim.annotations[ANNOTATIONS.consolidationResume] !== undefined),
  );
  return [...order.slice(start), ...order.slice(0, start)];
}

/** What a walk found, and where the next run should start. */
export interface Walked<T> {
  /** The first candidate `simulate` accepted, with what it returned. */
  readonly found?: { readonly candidate: Candidate; readonly result: T };
  /**
   * The NodeClaim to start at next run: the candidate after the one found, or the first not
   * simulated when time ran out; undefined when the walk went round every candidate.
   */
  readonly resumeAt?: string;
}

/**
 * Walks `order`, simulating each candidate until `simulate` returns a result or `outOfTime` says
 * the budget is spent (checked before every candidate but the first, so each run makes progress).
 */
export function walkCandidates<T>(
  order: readonly Candidate[],
  simulate: (c: Candidate) => T | undefined,
  outOfTime: () => boolean,
): Walked<T> {
  for (const [i, candidate] of order.entries()) {
    if (i > 0 && outOfTime()) return { resumeAt: candidate.claim.name };
    const result = simulate(candidate);
    if (result === undefined) continue;
    const next = order[i + 1];
    return { found: { candidate, result }, ...(next ? { resumeAt: next.claim.name } : {}) };
  }
  return {};
}

/**
 * The NodeClaims whose {@link ANNOTATIONS.consolidationResume} mark must change so that only
 * `resumeAt` carries it (none when null): true to set, false to remove; the rest are left alone,
 * so a run that changes nothing writes nothing.
 */
export function resumeMarkChanges(
  claims: readonly Pick<NodeClaim, 'name' | 'annotations'>[],
  resumeAt: string | null,
): { readonly nodeClaim: string; readonly mark: boolean }[] {
  const changes: { nodeClaim: string; mark: boolean }[] = [];
  for (const claim of claims) {
    const marked = claim.annotations[ANNOTATIONS.consolidationResume] !== undefined;
    if (claim.name === resumeAt && !marked) changes.push({ nodeClaim: claim.name, mark: true });
    else if (claim.name !== resumeAt && marked) changes.push({ nodeClaim: claim.name, mark: false });
  }
  return changes;
}
