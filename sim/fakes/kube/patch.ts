/**
 * The three patch formats the API server accepts from client-node: JSON merge patch (RFC 7386),
 * JSON patch (RFC 6902, with `test`) and a strategic merge patch limited to the list fields
 * podlift touches. All functions return a new document and never mutate their inputs.
 */
import { cloneObject, isJsonObject, jsonEqual } from './kube-object';

/** The patch content types, as client-node's `PatchStrategy` spells them. */
export const patchContentTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategicMerge: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/**
 * A patch that cannot be applied. `malformed` means the patch document itself is wrong (the
 * real server answers 400); otherwise it did not apply to this object (422).
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly malformed: boolean;

  constructor(message: string, malformed: boolean) {
    super(message);
    this.malformed = malformed;
  }
}

/** RFC 7386: objects merge recursively, `null` deletes, everything else (arrays too) replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneObject(patch);
  const result: Record<string, unknown> = isJsonObject(target) ? cloneObject(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/**
 * List fields that a strategic merge patch merges instead of replacing, by dotted path:
 * a merge key for lists of objects, `null` for sets of primitives. Every other list (node
 * taints included: `NodeSpec.Taints` has no patch strategy) is replaced, as in a merge patch.
 */
const strategicListKeys = new Map<string, string | null>([
  ['metadata.finalizers', null],
  ['metadata.ownerReferences', 'uid'],
  ['status.conditions', 'type'],
  ['spec.containers', 'name'],
  ['spec.initContainers', 'name'],
  ['spec.template.spec.containers', 'name'],
]);

/**
 * A strategic merge patch, simplified: merge-patch semantics, except that the lists in
 * `strategicListKeys` merge by key (`$patch: delete` removes an element), `metadata.finalizers`
 * merges as a set, and `$deleteFromPrimitiveList/<field>` removes primitives. Other directives
 * (`$retainKeys`, `$setElementOrder`, `$patch: replace`) are not supported.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, path = ''): unknown {
  if (!isJsonObject(patch)) return cloneObject(patch);
  const result: Record<string, unknown> = isJsonObject(target) ? cloneObject(target) : {};
  const deletions: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      deletions.push([key.slice('$deleteFromPrimitiveList/'.length), value]);
      continue;
    }
    if (key.startsWith('$')) continue;
    const childPath = path === '' ? key : `${path}.${key}`;
    if (value === null) delete result[key];
    else if (Array.isArray(value) && strategicListKeys.has(childPath)) {
      result[key] = mergeList(result[key], value, strategicListKeys.get(childPath) ?? null, childPath);
    } else result[key] = applyStrategicMergePatch(result[key], value, childPath);
  }
  for (const [key, values] of deletions) {
    if (Array.isArray(result[key]) && Array.isArray(values)) {
      result[key] = (result[key] as unknown[]).filter((item) => !values.some((v) => jsonEqual(v, item)));
    }
  }
  return result;
}

function mergeList(current: unknown, patch: unknown[], mergeKey: string | null, path: string): unknown[] {
  const result = Array.isArray(current) ? cloneObject(current) : [];
  for (const item of patch) {
    if (mergeKey === null) {
      if (!result.some((existing) => jsonEqual(existing, item))) result.push(cloneObject(item));
      continue;
    }
    if (!isJsonObject(item)) throw new PatchError(`${path}: list element is not an object`, true);
    const index = result.findIndex(
      (existing) => isJsonObject(existing) && existing[mergeKey] === item[mergeKey],
    );
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) result[index] = applyStrategicMergePatch(result[index], item, path);
    else result.push(applyStrategicMergePatch({}, item, path));
  }
  return result;
}

interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`, true);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function childOf(container: unknown, token: string): unknown {
  if (Array.isArray(container)) return /^\d+$/.test(token) ? container[Number(token)] : undefined;
  return isJsonObject(container) && Object.hasOwn(container, token) ? container[token] : undefined;
}

function getAt(doc: unknown, tokens: readonly string[], pointer: string): unknown {
  let value = doc;
  for (const token of tokens) {
    value = childOf(value, token);
    if (value === undefined) throw new PatchError(`doc is missing path: ${JSON.stringify(pointer)}`, false);
  }
  return value;
}

function arrayIndex(array: unknown[], token: string, allowEnd: boolean, pointer: string): number {
  if (token === '-' && allowEnd) return array.length;
  const limit = allowEnd ? array.length : array.length - 1;
  if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) > limit) {
    throw new PatchError(`invalid index ${JSON.stringify(token)} in ${JSON.stringify(pointer)}`, false);
  }
  return Number(token);
}

/** Applies `mutate` to the parent container of `pointer`, returning the new root. */
function withParent(
  doc: unknown,
  pointer: string,
  mutate: (parent: Record<string, unknown> | unknown[], last: string) => void,
): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new PatchError('cannot modify the document root', false);
  const parent = getAt(doc, tokens.slice(0, -1), pointer);
  if (!Array.isArray(parent) && !isJsonObject(parent)) {
    throw new PatchError(`doc is missing path: ${JSON.stringify(pointer)}`, false);
  }
  mutate(parent, tokens[tokens.length - 1]);
  return doc;
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  if (pointer === '') return cloneObject(value);
  return withParent(doc, pointer, (parent, last) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, pointer), 0, cloneObject(value));
    else parent[last] = cloneObject(value);
  });
}

function remove(doc: unknown, pointer: string): unknown {
  return withParent(doc, pointer, (parent, last) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false, pointer), 1);
    else if (Object.hasOwn(parent, last)) delete parent[last];
    else throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`, false);
  });
}

/** RFC 6902 JSON patch; a failed `test` throws a (non-malformed) {@link PatchError}. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch', true);
  let doc = cloneObject(target);
  for (const raw of patch) {
    if (!isJsonObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new PatchError(`invalid JSON patch operation ${JSON.stringify(raw)}`, true);
    }
    const op = raw as unknown as JsonPatchOperation;
    switch (op.op) {
      case 'add':
        doc = add(doc, op.path, op.value);
        break;
      case 'remove':
        doc = remove(doc, op.path);
        break;
      case 'replace':
        getAt(doc, parsePointer(op.path), op.path);
        doc = op.path === '' ? cloneObject(op.value) : add(remove(doc, op.path), op.path, op.value);
        break;
      case 'move': {
        const from = op.from ?? '';
        const value = getAt(doc, parsePointer(from), from);
        doc = add(remove(doc, from), op.path, value);
        break;
      }
      case 'copy': {
        const from = op.from ?? '';
        doc = add(doc, op.path, getAt(doc, parsePointer(from), from));
        break;
      }
      case 'test': {
        const tokens = parsePointer(op.path);
        let actual: unknown;
        try {
          actual = getAt(doc, tokens, op.path);
        } catch {
          actual = undefined;
        }
        if (!jsonEqual(actual, op.value)) {
          throw new PatchError(`testing value ${op.path} failed: test failed`, false);
        }
        break;
      }
      default:
        throw new PatchError(`Unexpected kind: ${op.op}`, true);
    }
  }
  return doc;
}
