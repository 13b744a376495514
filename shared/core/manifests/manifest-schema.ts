import * as z from 'zod';
import { ValidationError, type ValidationLocation } from '../model/errors';
import { manifestIdentity } from './manifest-kind';
import { validationErrorFromZod } from './schema-issues';
import { valueShapeIssue } from './value-shape';

/** DNS-1123 subdomain: what Kubernetes accepts as the name of a cluster-scoped custom object. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A map of strings (labels, annotations, tags). */
export const stringMap = z.record(z.string(), z.string());

/** What identifies one custom resource kind podlift reads. */
export interface ManifestKind {
  readonly kind: string;
  readonly apiVersion: string;
  /** The previous API version, named in the error that tells users to migrate. */
  readonly legacyApiVersion: string;
  /** The Karpenter release whose fields this kind accepts, named when a field is unknown. */
  readonly fieldsOf?: string;
}

/**
 * The apiVersion, kind and metadata fields every cluster-scoped custom resource shares:
 * a clear migration message for the legacy API version, a DNS-1123 name, labels and
 * annotations; any other ObjectMeta field is accepted.
 */
export function manifestHeader(k: ManifestKind) {
  return {
    apiVersion: z.string().refine((v) => v === k.apiVersion, {
      error: (issue) =>
        issue.input === k.legacyApiVersion
          ? `${k.legacyApiVersion} is no longer served: migrate the ${k.kind} to ${k.apiVersion}`
          : `must be ${k.apiVersion}`,
    }),
    kind: z.literal(k.kind, { error: `must be ${k.kind}` }),
    metadata: z.looseObject({
      name: z
        .string()
        .max(253)
        .regex(DNS1123_SUBDOMAIN, 'must be a DNS-1123 subdomain: lowercase alphanumerics, "-" and "."'),
      uid: z.string().optional(),
      labels: stringMap.optional(),
      annotations: stringMap.optional(),
    }),
  };
}

/**
 * Validates `obj` against a manifest schema and converts it, or throws a ValidationError
 * whose location names `Kind/name` (even for an invalid body) and whose issues name every bad
 * field with its dotted path and value.
 */
export function parseManifest<S extends z.ZodType, R>(
  k: ManifestKind,
  schema: S,
  obj: unknown,
  location: ValidationLocation,
  convert: (data: z.output<S>) => R,
): R {
  const where: ValidationLocation = {
    ...location,
    object: `${k.kind}/${manifestIdentity(obj).name ?? '<unnamed>'}`,
  };
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    const article = /^[AEIOU]/.test(k.kind) ? 'an' : 'a';
    throw new ValidationError(
      [{ field: '', value: obj, message: `${article} ${k.kind} must be an object` }],
      where,
    );
  }
  // Before anything walks it: zod and the error rendering recurse, and would throw (or run
  // out of memory on a YAML alias bomb) rather than report.
  const shape = valueShapeIssue(obj);
  if (shape) throw new ValidationError([shape], where);
  const result = schema.safeParse(obj);
  if (!result.success) {
    throw validationErrorFromZod(
      result.error,
      obj,
      where,
      `not a field of ${k.apiVersion} ${k.kind}${k.fieldsOf ? ` in ${k.fieldsOf}` : ''}; check its spelling and indentation`,
    );
  }
  return convert(result.data);
}
