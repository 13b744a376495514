import type { ValidationIssue } from '../model/errors';
import { fieldPath } from './schema-issues';

/**
 * How big a decoded document may be before anything walks it: the schema validation, the
 * error rendering and the hashing all recurse into a value, so a value nested deeper than the
 * stack, a cycle (YAML `&a [*a]`) or a tree made of shared subtrees (a YAML alias bomb, which
 * a walk expands exponentially) would throw or run out of memory in whatever reads it next.
 */
export interface ValueShapeLimits {
  /** Levels of nested mappings and sequences. */
  readonly maxDepth: number;
  /** Mappings, sequences and scalars in all, counting a shared subtree each time it is reached. */
  readonly maxValues: number;
}

/**
 * The limits for one Kubernetes object. A NodePool or EC2NodeClass is about 10 levels deep and
 * a Pod about 15, with tens to hundreds of values; kube-apiserver stores objects of at most
 * 1.5 MiB (etcd's request limit), which is about a few hundred thousand values.
 */
export const MANIFEST_SHAPE: ValueShapeLimits = { maxDepth: 100, maxValues: 500_000 };

/**
 * What is wrong with the shape of `value`, or undefined when it is within `limits`. Walks
 * iteratively (no recursion to overflow) and stops at the first value past a limit, so the
 * cost is at most `limits.maxValues` steps whatever the input. A cycle is reported as too deep.
 */
export function valueShapeIssue(
  value: unknown,
  limits: ValueShapeLimits = MANIFEST_SHAPE,
): ValidationIssue | undefined {
  const stack: Step[] = [{ value, key: '', parent: undefined, depth: 0 }];
  let seen = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    seen += 1;
    if (seen > limits.maxValues) {
      return {
        field: '(document)',
        value: undefined,
        message: `holds more than ${limits.maxValues} values (an alias counts as every value it stands for)`,
      };
    }
    const v = next.value;
    if (v === null || typeof v !== 'object') continue;
    if (next.depth >= limits.maxDepth) {
      return {
        // The first levels are enough to find it; a cycle's path would go on for ever.
        field: fieldPath(pathOf(next).slice(0, 10)),
        value: undefined,
        message: `is nested more than ${limits.maxDepth} levels deep (or refers to itself)`,
      };
    }
    const depth = next.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: next, depth });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: (v as Record<string, unknown>)[key], key, parent: next, depth });
      }
    }
  }
  return undefined;
}

/** One value on the walk, linked to its parent so a path is only built for the error. */
interface Step {
  readonly value: unknown;
  readonly key: PropertyKey;
  readonly parent: Step | undefined;
  readonly depth: number;
}

function pathOf(step: Step): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let s: Step | undefined = step; s?.parent !== undefined; s = s.parent) path.push(s.key);
  return path.reverse();
}
