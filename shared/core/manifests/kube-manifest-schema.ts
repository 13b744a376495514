import * as z from 'zod';
import type { ValidationIssue, ValidationLocation } from '../model/errors';
import { ValidationError } from '../model/errors';
import { resourceValue } from '../model/quantity';
import { valueAt } from './schema-issues';

/**
 * What the Pod and Node manifests podlift validates (YAML or API JSON, see kube-objects.ts)
 * have in common: ObjectMeta, string maps, resource quantities, and a parse that turns every
 * bad field into a ValidationError naming its dotted path and value.
 */

/**
 * A field that may be absent. YAML turns an empty `key:` into null; the API omits the field.
 * Both mean "absent".
 */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish();
}

/** A map of strings (labels, annotations, node selectors). */
export const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }));

/** Quantities keyed by resource name, each checked in that resource's canonical unit. */
export const quantityMap = z
  .record(z.string(), z.union([z.string(), z.number()], { error: 'must be a Kubernetes quantity' }))
  .superRefine((map, ctx) => {
    for (const [name, quantity] of Object.entries(map)) {
      let value: number;
      try {
        value = resourceValue(name, quantity);
      } catch (e) {
        const why = e instanceof ValidationError ? e.issues[0]?.message : undefined;
        ctx.addIssue({ code: 'custom', path: [name], message: why ?? 'not a Kubernetes quantity' });
        continue;
      }
      if (value < 0) ctx.addIssue({ code: 'custom', path: [name], message: 'must not be negative' });
    }
  });

/** A taint's effect. */
export const effect = z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

const ownerReference = z.object({
  kind: optional(z.string()),
  name: optional(z.string()),
  controller: optional(z.boolean()),
});

/** The ObjectMeta fields podlift reads; the name is optional here (a pod template has none). */
export const metadata = z.object({
  name: optional(z.string()),
  namespace: optional(z.string()),
  uid: optional(z.string()),
  resourceVersion: optional(z.string()),
  labels: optional(stringMap),
  annotations: optional(stringMap),
  ownerReferences: optional(z.array(ownerReference)),
  deletionTimestamp: optional(z.string()),
  creationTimestamp: optional(z.string()),
  finalizers: optional(z.array(z.string())),
});

/** ObjectMeta as validated by {@link metadata}. */
export type Metadata = z.infer<typeof metadata>;

/** ObjectMeta of a named object (a Pod, a Node). */
export const namedMetadata = metadata.extend({ name: z.string().min(1, { error: 'must not be empty' }) });

/** Quantities already validated by {@link quantityMap}, in canonical units. */
export function toResources(map: Readonly<Record<string, string | number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(map)) out[name] = resourceValue(name, quantity);
  return out;
}

/** metadata.name of an object not yet validated, to locate its errors; undefined when absent or empty. */
export function peekName(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const name = (meta as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Parses `obj` with `schema`, or throws a ValidationError at `location` with one issue per
 * bad field, its dotted path under `prefix` and the value found there.
 */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  obj: unknown,
  prefix: string,
  location: ValidationLocation,
): z.infer<T> {
  const result = schema.safeParse(obj);
  if (result.success) return result.data;
  const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
    field: formatPath(prefix, issue.path),
    value: valueAt(obj, issue.path),
    message: issue.message,
  }));
  throw new ValidationError(issues, location);
}

/** `spec.containers[0].resources.requests.cpu`; keys that are not identifiers are quoted: `labels["app.kubernetes.io/name"]`. */
function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(String(key))) out += out === '' ? String(key) : `.${String(key)}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
