/**
 * Who a manifest says it is, read defensively so that callers can name the object
 * (`NodePool/default`) in an error even when its body is invalid.
 */

/** The identifying fields of a Kubernetes-style manifest; each absent when missing or not a string. */
export interface ManifestIdentity {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

function stringField(obj: unknown, key: string): string | undefined {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const value = (obj as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** apiVersion, kind, metadata.name and metadata.namespace of `obj`, whatever else is wrong with it. */
export function manifestIdentity(obj: unknown): ManifestIdentity {
  const metadata =
    obj !== null && typeof obj === 'object' ? (obj as Record<string, unknown>).metadata : undefined;
  const apiVersion = stringField(obj, 'apiVersion');
  const kind = stringField(obj, 'kind');
  const name = stringField(metadata, 'name');
  const namespace = stringField(metadata, 'namespace');
  return {
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

/**
 * `Kind/name` (`Kind/namespace/name` for namespaced objects), for ValidationLocation.object.
 * Falls back to `fallbackKind` when the manifest names no kind and to `<unnamed>` without a name.
 */
export function manifestRef(obj: unknown, fallbackKind = 'object'): string {
  const id = manifestIdentity(obj);
  const kind = id.kind ?? fallbackKind;
  const name = id.name ?? '<unnamed>';
  return id.namespace !== undefined ? `${kind}/${id.namespace}/${name}` : `${kind}/${name}`;
}
