import type { KubeObject } from './kube-object';
import { isJsonObject } from './kube-object';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  PatchError,
  patchContentTypes,
} from './patch';
import type { ResourceType } from './resources';
import { badRequest, failureStatus, KubeApiError } from './status';

/**
 * What a `PATCH` of `current` (named `name` on the URL) with `contentType` makes of it, or the
 * API server's refusal: merge, strategic merge (not on custom resources) and JSON patch; a
 * failed JSON-patch `test` is 422, a malformed patch 400, another media type 415 (server-side apply is
 * the store's `apply`, which the handler calls first), a result that renames the object or is not one 400. The caller checks the
 * resourceVersion precondition and writes the result.
 */
export function patchedObject(
  type: ResourceType,
  current: KubeObject,
  name: string,
  patch: unknown,
  contentType: string,
): KubeObject {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  let patched: unknown;
  try {
    switch (mediaType) {
      case patchContentTypes.merge:
        if (!isJsonObject(patch)) throw new PatchError('a merge patch must be a JSON object', true);
        patched = applyMergePatch(current, patch);
        break;
      case patchContentTypes.strategicMerge:
        if (type.custom)
          throw unsupportedPatch([patchContentTypes.json, patchContentTypes.merge, patchContentTypes.apply]);
        if (!isJsonObject(patch)) throw new PatchError('a strategic merge patch must be a JSON object', true);
        patched = applyStrategicMergePatch(current, patch);
        break;
      case patchContentTypes.json:
        patched = applyJsonPatch(current, patch);
        break;
      default:
        throw unsupportedPatch([
          patchContentTypes.json,
          patchContentTypes.merge,
          patchContentTypes.apply,
          ...(type.custom ? [] : [patchContentTypes.strategicMerge]),
        ]);
    }
  } catch (error) {
    if (!(error instanceof PatchError)) throw error;
    if (error.malformed) throw badRequest(error.message);
    throw new KubeApiError(
      failureStatus(422, 'the server rejected our request due to an error in our request', 'Invalid', {
        causes: [{ reason: 'UnexpectedServerResponse', message: error.message }],
      }),
    );
  }
  if (!isJsonObject(patched) || !isJsonObject(patched.metadata)) {
    throw badRequest('the patched object is not a Kubernetes object');
  }
  const result = patched as KubeObject;
  if (result.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${String(result.metadata.name)}) does not match the name on the URL (${name})`,
    );
  }
  return result;
}

function unsupportedPatch(accepted: readonly string[]): KubeApiError {
  return new KubeApiError(
    failureStatus(
      415,
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      'UnsupportedMediaType',
    ),
  );
}
