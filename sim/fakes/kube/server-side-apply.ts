/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`) as the API server does it for
 * one field manager: the applied configuration is merged into the live object, and a field the
 * manager applied last time but leaves out now is removed (apiserver
 * `fieldmanager.FieldManager.Apply`, structured-merge-diff `Updater.Apply`). Simplified where
 * podlift does not depend on it: every list is atomic (replaced whole, as for a list without
 * `x-kubernetes-list-type: map`), and ownership is tracked per manager by the configuration it
 * last applied rather than by a managedFields field set.
 */
import type { KubeObject } from './kube-object';
import { cloneObject, isJsonObject, jsonEqual } from './kube-object';
import type { ResourceType } from './resources';
import { apiVersionOf } from './resources';
import { badRequest, conflict, failureStatus, KubeApiError } from './status';

type JsonObject = Record<string, unknown>;

/** The query parameters of an apply request. */
export interface ApplyOptions {
  /** `fieldManager`: required for apply. */
  readonly fieldManager: string | undefined;
  /** `force=true`: take fields other managers set instead of answering 409. */
  readonly force: boolean;
}

/**
 * Checks an apply request's body and options as the real server does before touching storage:
 * a field manager is required (422), the body must be an object of this resource's apiVersion
 * and kind (400) naming the object on the URL (400).
 */
export function checkApplyRequest(
  type: ResourceType,
  name: string,
  body: unknown,
  options: ApplyOptions,
): JsonObject & { metadata: JsonObject } {
  if (!options.fieldManager) {
    throw new KubeApiError(
      failureStatus(
        422,
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        'Invalid',
      ),
    );
  }
  if (!isJsonObject(body) || !isJsonObject(body.metadata)) {
    throw badRequest('error decoding YAML: the applied configuration must be an object with metadata');
  }
  if (body.apiVersion !== apiVersionOf(type) || body.kind !== type.kind) {
    throw badRequest(
      `the API version in the data (${String(body.apiVersion)}) and kind (${String(body.kind)}) do not match the resource ${apiVersionOf(type)}, Kind=${type.kind}`,
    );
  }
  if (body.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${String(body.metadata.name)}) does not match the name on the URL (${name})`,
    );
  }
  return body as JsonObject & { metadata: JsonObject };
}

/**
 * The live object after `manager` applies `applied` over `current` (undefined: the apply
 * creates it), given what the same manager applied last time. Without `force`, a field whose
 * live value differs from the applied one and that this manager did not set last time is a
 * conflict (409), as another manager owns it.
 */
export function mergeApplied(
  type: ResourceType,
  current: KubeObject | undefined,
  previous: JsonObject | undefined,
  applied: JsonObject,
  force: boolean,
): KubeObject {
  const base = current ? cloneObject(current) : { metadata: {} };
  if (current && !force) {
    const taken = conflictingPath(current, previous, applied, '');
    if (taken) {
      throw conflict(
        type,
        String(applied.metadata && (applied.metadata as JsonObject).name),
        `Apply failed with 1 conflict: conflict with another field manager: ${taken}`,
      );
    }
  }
  const merged = mergeInto(base, applied);
  if (previous) removeDropped(merged, previous, applied);
  return merged as KubeObject;
}

function mergeInto(target: JsonObject, source: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    target[key] =
      isJsonObject(value) && isJsonObject(existing) ? mergeInto(existing, value) : cloneObject(value);
  }
  return target;
}

/** Removes from `live` what `previous` set and `applied` no longer does (maps recursively). */
function removeDropped(live: JsonObject, previous: JsonObject, applied: JsonObject): void {
  for (const [key, was] of Object.entries(previous)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (!(key in applied)) delete live[key];
    else if (isJsonObject(was) && isJsonObject(applied[key]) && isJsonObject(live[key])) {
      removeDropped(live[key] as JsonObject, was, applied[key] as JsonObject);
    }
  }
}

function conflictingPath(
  live: JsonObject,
  previous: JsonObject | undefined,
  applied: JsonObject,
  path: string,
): string | undefined {
  for (const [key, value] of Object.entries(applied)) {
    if (!(key in live)) continue;
    const here = `${path}.${key}`;
    const was = previous?.[key];
    if (isJsonObject(value) && isJsonObject(live[key])) {
      const found = conflictingPath(
        live[key] as JsonObject,
        isJsonObject(was) ? was : undefined,
        value,
        here,
      );
      if (found) return found;
    } else if (!jsonEqual(live[key], value) && !jsonEqual(was, live[key])) return here;
  }
  return undefined;
}
