import { manifestRef } from '../shared/core/manifests/manifest-kind';
import { ValidationError, type ValidationLocation } from '../shared/core/model/errors';
import { isObject, type Obj } from '../shared/yaml/kubernetes-yaml';

/** An object of a kubectl-style input, with where it was found. */
export interface Located {
  readonly obj: Obj;
  readonly kind: string;
  readonly name: string;
  readonly location: ValidationLocation;
}

/**
 * Hands each Kubernetes object of one document to `visit`: `kind: List` and `*List` objects
 * (`PodList`, as the API answers) are flattened, nested ones too, and each object's location
 * names it (`Pod/web-1 (List item 3)`). A ValidationError `visit` throws is located there.
 * @throws ValidationError for a document or List item that is not an object with a kind
 */
export function visitObjects(doc: unknown, base: ValidationLocation, visit: (o: Located) => void): void {
  visitAt(doc, base, [], visit);
}

/** @param itemPath indexes into enclosing Lists, outermost first */
function visitAt(
  doc: unknown,
  base: ValidationLocation,
  itemPath: readonly number[],
  visit: (o: Located) => void,
): void {
  const within = itemPath.length > 0 ? ` (List item ${itemPath.join('.')})` : '';
  const at = (object?: string): ValidationLocation => ({
    ...base,
    object: object === undefined ? (within ? within.slice(2, -1) : undefined) : `${object}${within}`,
  });
  if (!isObject(doc)) {
    throw new ValidationError(
      [{ field: '(document)', value: doc, message: 'expected a Kubernetes object (a mapping with kind)' }],
      at(),
    );
  }
  const kind = doc.kind;
  if (typeof kind !== 'string' || kind === '') {
    throw new ValidationError([{ field: 'kind', value: kind, message: 'must be a non-empty string' }], at());
  }
  if (kind === 'List' || (kind.endsWith('List') && 'items' in doc)) {
    const items = doc.items ?? [];
    if (!Array.isArray(items)) {
      throw new ValidationError([{ field: 'items', value: items, message: 'must be a list' }], at(kind));
    }
    items.forEach((item, i) => {
      if (item !== null && item !== undefined) visitAt(item, base, [...itemPath, i], visit);
    });
    return;
  }
  const metadata = isObject(doc.metadata) ? doc.metadata : {};
  const name = metadata.name;
  const location = at(manifestRef(doc));
  try {
    visit({ obj: doc, kind, name: typeof name === 'string' ? name : '', location });
  } catch (e) {
    throw e instanceof ValidationError ? e.at(location) : e;
  }
}
