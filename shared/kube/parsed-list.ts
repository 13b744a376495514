import { isValidationError, type ValidationError } from '../core/model/errors';
import type { ParsedList } from '../core/ports/cluster';

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
