import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatRef, type ManifestObject, refOf } from '../../shared/core/install/install-objects';
import { renderKustomization } from '../../shared/yaml/kustomize-render';
import { REPO_ROOT } from './function-bundle';

/** The manifests directory of this checkout. */
export const MANIFESTS_DIR = join(REPO_ROOT, 'manifests');

/** The objects manifests/ renders (shared/yaml/kustomize-render.ts), read from `dir`. */
export function renderManifests(dir: string = MANIFESTS_DIR): ManifestObject[] {
  return renderKustomization((file) => readFileSync(join(dir, file), 'utf8'));
}

/** The rendered manifests as the installer reads them, their digest and their references. */
export interface InstallManifests {
  readonly json: string;
  /** sha256 of {@link json}: a changed manifest changes the custom resource, so it updates. */
  readonly digest: string;
  /** Every object, as the custom resource's `Objects` property names them (formatRef). */
  readonly objects: readonly string[];
}

/** {@link renderManifests} as JSON, with its digest and references. */
export function installManifests(dir: string = MANIFESTS_DIR): InstallManifests {
  const objects = renderManifests(dir);
  const json = JSON.stringify(objects);
  return {
    json,
    digest: createHash('sha256').update(json).digest('hex'),
    objects: objects.map((o) => formatRef(refOf(o))),
  };
}

/** Writes `json` as the installer's asset file into `dir`; its path. */
export function writeInstallManifests(dir: string, json: string, fileName: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, fileName);
  writeFileSync(file, json);
  return file;
}
