import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { formatRef, type ManifestObject, refOf } from '../../shared/core/install/install-objects';
import { REPO_ROOT } from './function-bundle';

/**
 * manifests/ as `kustomize build manifests/` renders it, for the installer to apply: the
 * `resources` in order, the `configMapGenerator` ConfigMap (without kustomize's hash suffix:
 * the installer rolls the watcher through a digest annotation instead, so the ConfigMap keeps
 * one name the Deployment refers to), and the `images` override on every container.
 */

/** The manifests directory of this checkout. */
export const MANIFESTS_DIR = join(REPO_ROOT, 'manifests');

interface Kustomization {
  readonly resources: readonly string[];
  readonly configMapGenerator?: readonly {
    readonly name: string;
    readonly namespace?: string;
    readonly literals?: readonly string[];
  }[];
  readonly images?: readonly { readonly name: string; readonly newName?: string; readonly newTag?: string }[];
}

/** The objects `kustomization.yaml` in `dir` renders. */
export function renderManifests(dir: string = MANIFESTS_DIR): ManifestObject[] {
  const kustomization = parseYaml(join(dir, 'kustomization.yaml'))[0] as unknown as Kustomization;
  const objects: ManifestObject[] = kustomization.resources.flatMap((file) => parseYaml(join(dir, file)));
  for (const generator of kustomization.configMapGenerator ?? []) {
    const data = Object.fromEntries(
      (generator.literals ?? []).map((literal) => {
        const at = literal.indexOf('=');
        return [literal.slice(0, at), literal.slice(at + 1)];
      }),
    );
    objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: generator.name, ...(generator.namespace ? { namespace: generator.namespace } : {}) },
      data,
    });
  }
  const images = new Map((kustomization.images ?? []).map((i) => [i.name, i]));
  return objects.map((object) => withImages(object, images));
}

function withImages(
  object: ManifestObject,
  images: ReadonlyMap<string, NonNullable<Kustomization['images']>[number]>,
): ManifestObject {
  const spec = object.spec as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined;
  const containers = spec?.template?.spec?.containers;
  if (!containers) return object;
  for (const container of containers) {
    const name = container.image?.replace(/[:@].*$/, '');
    const image = name === undefined ? undefined : images.get(name);
    if (image) container.image = `${image.newName ?? image.name}${image.newTag ? `:${image.newTag}` : ''}`;
  }
  return object;
}

function parseYaml(file: string): ManifestObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
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
