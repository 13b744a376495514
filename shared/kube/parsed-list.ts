import { manifestIdentity } from '../core/manifests/manifest-kind';
import { isValidationError, ValidationError } from '../core/model/errors';
import type { ParsedList } from '../core/ports/cluster';

/**
 * Parses each object; an object whose parsing fails in any way is reported in `invalid` and
 * left out, and the others are still returned. A failure that is not a ValidationError (the
 * parser's own exception on a value no schema foresaw) becomes one naming `kind/name`, so one
 * object read from the cluster can never stop a loop, and the guards that look for an invalid
 * `EC2NodeClass/...` still see it.
 */
export function parseEach<I, T>(objects: readonly I[], kind: string, parse: (object: I) => T): ParsedList<T> {
  const items: T[] = [];
  const invalid: ValidationError[] = [];
  for (const object of objects) {
    try {
      items.push(parse(object));
    } catch (error) {
      invalid.push(isValidationError(error) ? error : unexpected(error, object, kind));
    }
  }
  return { items, invalid };
}

function unexpected(error: unknown, object: unknown, kind: string): ValidationError {
  const { name, namespace } = manifestIdentity(object);
  return new ValidationError(
    [
      {
        field: '(object)',
        value: undefined,
        message: `cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      },
    ],
    {
      source: 'cluster',
      object: `${kind}/${namespace === undefined ? '' : `${namespace}/`}${name ?? '<unnamed>'}`,
    },
    { cause: error },
  );
}
