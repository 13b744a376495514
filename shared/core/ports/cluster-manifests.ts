import type { ManifestObject, ObjectRef } from '../install/install-objects';

/**
 * The port the installer writes podlift's own objects (manifests/) through: server-side apply
 * as field manager `podlift`, delete and read by reference. shared/kube implements it.
 */
export interface ClusterManifestsPort {
  /** Server-side applies `object` (creating it when absent), taking fields other managers hold. */
  apply(object: ManifestObject): Promise<void>;
  /** Deletes the object; `absent` when there was none (already deleted is done). */
  delete(ref: ObjectRef): Promise<'deleted' | 'absent'>;
  /** The object as the API server has it (JSON), or undefined when there is none. */
  read(ref: ObjectRef): Promise<Readonly<Record<string, unknown>> | undefined>;
}
