import { Requirement, type Requirements } from '../model/requirements';

/** Requirements for one attempt, with a stable key for caches. */
export interface RequirementTerm {
  readonly requirements: Requirements;
  readonly key: string;
}

let termSeq = 0;
const termKeys = new WeakMap<Requirements, string>();

/** A cache key for a Requirements value (identity-based: built once per profile). */
export function termKey(r: Requirements): string {
  let k = termKeys.get(r);
  if (!k) {
    k = `t${termSeq++}`;
    termKeys.set(r, k);
  }
  return k;
}

/**
 * Adds `key In [value]` to a term. `cache` (one per scheduling run) makes repeated pins share
 * one Requirements value and key, so planned nodes' evaluation caches hit.
 */
export function pinTerm(
  cache: Map<string, RequirementTerm>,
  term: RequirementTerm,
  key: string,
  value: string,
): RequirementTerm {
  const id = `${term.key}|${key}=${value}`;
  let t = cache.get(id);
  if (!t) {
    const requirements = term.requirements.with(Requirement.of(key, 'In', [value]));
    t = { requirements, key: id };
    termKeys.set(requirements, id);
    cache.set(id, t);
  }
  return t;
}
