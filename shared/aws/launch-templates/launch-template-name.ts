import { createHash } from 'node:crypto';
import { ValidationError } from '../../core/model/errors';

/** EC2's limit on launch template names. */
const MAX_NAME_LENGTH = 128;
/** Characters EC2 allows in a launch template name, less `/`, which separates podlift's parts. */
const CLUSTER_NAME_CHARS = /^[a-zA-Z0-9().\-_]+$/;
/** Hex digits of the content hash in a name: 64 bits, so a collision needs ~4 billion templates. */
const HASH_LENGTH = 16;

/** `podlift/<cluster>/`: every launch template podlift makes for the cluster starts so. */
export function launchTemplatePrefix(cluster: string): string {
  if (
    !CLUSTER_NAME_CHARS.test(cluster) ||
    cluster.length > MAX_NAME_LENGTH - 'podlift//'.length - HASH_LENGTH
  ) {
    throw new ValidationError(
      [
        {
          field: 'name',
          value: cluster,
          message: `cannot name launch templates: use at most ${
            MAX_NAME_LENGTH - 'podlift//'.length - HASH_LENGTH
          } characters of a-z, A-Z, 0-9, ( ) . - _`,
        },
      ],
      { object: `Cluster/${cluster}` },
    );
  }
  return `podlift/${cluster}/`;
}

/**
 * `podlift/<cluster>/<hash>`, the hash covering `content` (the launch template data and tags)
 * in a canonical form: equal content gives the same name in every process, and any change
 * (AMI, user data, security groups, tags, ...) gives a new name, so a template is never
 * modified in place, only replaced.
 */
export function launchTemplateName(cluster: string, content: unknown): string {
  const hash = createHash('sha256').update(canonicalJson(content)).digest('hex').slice(0, HASH_LENGTH);
  return `${launchTemplatePrefix(cluster)}${hash}`;
}

/** JSON with object keys sorted and undefined members left out. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
