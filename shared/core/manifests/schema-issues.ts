import type * as z from 'zod';
import { ValidationError, type ValidationIssue, type ValidationLocation } from '../model/errors';

/**
 * Turning zod's issues into podlift's {@link ValidationIssue}s: a dotted field path
 * (`spec.template.spec.requirements[2].operator`, map keys that are not plain identifiers in
 * brackets: `spec.limits["nvidia.com/gpu"]`), the offending value read back from the input,
 * and one issue per unknown field.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A path as a dotted field name; array indices and unusual keys in brackets. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = String(segment);
      out += IDENTIFIER.test(key) ? `${out ? '.' : ''}${key}` : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** The value at `path` inside `root`, or undefined when the path does not exist. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** One ValidationIssue per zod issue; unrecognized keys become one issue per unknown field. */
export function issuesFromZod(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  unknownFieldHint: string,
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        out.push({
          field: fieldPath(path),
          value: valueAt(input, path),
          message: `unknown field "${key}" (${unknownFieldHint})`,
        });
      }
      continue;
    }
    const value = valueAt(input, issue.path);
    const missing = issue.code === 'invalid_type' && value === undefined;
    out.push({
      field: fieldPath(issue.path),
      value,
      message: missing ? 'required field is missing' : issue.message,
    });
  }
  return out;
}

/** A ValidationError for a failed zod parse of `input`. */
export function validationErrorFromZod(
  error: z.ZodError,
  input: unknown,
  location: ValidationLocation,
  unknownFieldHint: string,
): ValidationError {
  return new ValidationError(issuesFromZod(error.issues, input, unknownFieldHint), location, {
    cause: error,
  });
}
