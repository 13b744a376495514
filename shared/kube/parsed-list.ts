import { isValidationError, type ValidationError } from '../core/errors';

/**
 * The result of reading a list of objects that each must pass a core parser: the ones that
 * parsed, and one ValidationError per object that did not (naming it), so that one bad object
 * never hides the others.
 */
export interface ParsedList<T> {
  readonly items: readonly T[];
  readonly invalid: readonly ValidationError[];
}

/** Parses each object; ValidationErrors are collected, any other error is thrown. */
export function parseEach<I, T>(objects: readonly I[], parse: (object: I) => T): ParsedList<T> {
  const items: T[] = [];
  const invalid: ValidationError[] = [];
  for (const object of objects) {
    try {
      items.push(parse(object));
    } catch (error) {
      if (!isValidationError(error)) throw error;
      invalid.push(error);
    }
  }
  return { items, invalid };
}
