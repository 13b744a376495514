import { wildcardMatch } from '../../sim/fakes/aws/iam-policy/evaluate';
import type { NormalStatement } from './fixtures/karpenter-controller-policy';

/** One grant of a podlift role: an action on a resource, under its statement's conditions. */
export interface Grant {
  readonly role: string;
  readonly statement: NormalStatement;
  readonly action: string;
  readonly resource: string;
}

/** Every (action, resource) grant of `statements`, for `role`. */
export function grantsOf(role: string, statements: readonly NormalStatement[]): Grant[] {
  return statements.flatMap((statement) =>
    statement.Action.flatMap((action) =>
      statement.Resource.map((resource) => ({ role, statement, action, resource })),
    ),
  );
}

/**
 * Whether every string `inner` matches is matched by `outer` (both with `*` wildcards): a
 * literal `*` in `inner` can only be matched by a `*` in `outer`, which `wildcardMatch` gives
 * when `inner` is read as text.
 */
export function patternContains(outer: string, inner: string): boolean {
  if (!inner.includes('*')) return wildcardMatch(outer, inner, false);
  const marked = inner.replaceAll('*', '\u0000');
  return wildcardMatch(outer, marked, false) && !outer.replaceAll('*', '').includes('\u0000');
}

const values = (v: string | readonly string[]): readonly string[] => (typeof v === 'string' ? [v] : v);

/**
 * Whether `inner`'s conditions are at least as strict as every condition of `outer`: each of
 * `outer`'s keys is constrained in `inner` by the same operator (or, for `...IfExists`, by the
 * operator without it; for `StringLike`, by `StringEquals`) to values `outer` allows.
 */
export function conditionsAtLeast(
  inner: NormalStatement['Condition'],
  outer: NormalStatement['Condition'],
): boolean {
  return Object.entries(outer ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, allowed]) => {
      const candidates = [operator];
      if (operator.endsWith('IfExists')) candidates.push(operator.slice(0, -'IfExists'.length));
      if (operator === 'StringLike') candidates.push('StringEquals');
      return candidates.some((op) => {
        const found = inner?.[op]?.[key];
        if (found === undefined) return false;
        const like = operator.endsWith('Like') || operator.startsWith('ForAllValues');
        return values(found).every((v) =>
          values(allowed).some((a) => (like ? patternContains(a, v) : a === v)),
        );
      });
    }),
  );
}

/** Whether Karpenter's `statement` allows `grant` (its action, resource and at least its conditions). */
export function allows(statement: NormalStatement, grant: Grant): boolean {
  return (
    statement.Effect === 'Allow' &&
    statement.Action.some((a) => wildcardMatch(a, grant.action, true)) &&
    statement.Resource.some((r) => patternContains(r, grant.resource)) &&
    conditionsAtLeast(grant.statement.Condition, statement.Condition)
  );
}

/** A row of the side-by-side table: one Karpenter statement and what podlift grants within it. */
export interface ComparisonRow {
  readonly karpenter: string;
  readonly podlift: readonly string[];
  readonly leftOut: readonly string[];
}

/** For each Karpenter statement, the podlift statements within it and the actions and resources podlift leaves out. */
export function compareStatements(
  karpenter: readonly NormalStatement[],
  grants: readonly Grant[],
): ComparisonRow[] {
  return karpenter.map((statement) => {
    const within = grants.filter((g) => allows(statement, g));
    const names = [...new Set(within.map((g) => `${g.role}: ${g.statement.Sid ?? '(CDK grant)'}`))];
    const actions = statement.Action.filter((a) => !within.some((g) => g.action === a));
    const resources = statement.Resource.filter((r) => !within.some((g) => patternContains(r, g.resource)));
    return {
      karpenter: statement.Sid ?? '?',
      podlift: names,
      leftOut: within.length === 0 ? ['all of it'] : [...actions, ...resources.map(short)],
    };
  });
}

/** A resource ARN without its partition and region placeholders, for the table. */
export function short(resource: string): string {
  return resource.replace(/^arn:<Partition>:[a-z0-9-]+:(<Region>)?:[^:]*:/, '');
}
