import { parseAllDocuments } from 'yaml';
import type { ManifestObject } from '../core/install/install-objects';

/**
 * manifests/ as `kustomize build` renders it, for the installer (the stack's custom resource and
 * `podlift install`): the `resources` in order, the `configMapGenerator` ConfigMaps (without
 * kustomize's hash suffix: the installer rolls the watcher through a digest annotation instead,
 * so the ConfigMap keeps the one name the Deployment refers to), and the `images` override on
 * every container. These are podlift's own files, not a user's, so they are read with the
 * `yaml` package directly rather than through kubernetes-yaml.ts's limits.
 */

interface Kustomization {
  readonly resources: readonly string[];
  readonly configMapGenerator?: readonly {
    readonly name: string;
    readonly namespace?: string;
    readonly literals?: readonly string[];
  }[];
  readonly images?: readonly { readonly name: string; readonly newName?: string; readonly newTag?: string }[];
}

/**
 * The objects `kustomization.yaml` renders, `read` returning the text of a file of the
 * manifests directory by its relative path.
 */
export function renderKustomization(read: (file: string) => string): ManifestObject[] {
  const kustomization = parseYaml(read('kustomization.yaml'))[0] as unknown as Kustomization;
  const objects: ManifestObject[] = kustomization.resources.flatMap((file) => parseYaml(read(file)));
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

function parseYaml(text: string): ManifestObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
}
