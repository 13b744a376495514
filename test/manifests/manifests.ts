import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * Reading podlift's manifests (manifests/**) and the examples as plain Kubernetes objects, with
 * just enough typing for the tests: CRDs, RBAC, the watcher Deployment and kustomization.yaml.
 */

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** manifests/, where `kubectl apply -k` starts. */
export const MANIFESTS_DIR = join(REPO_ROOT, 'manifests');

/** Any Kubernetes object as decoded from YAML. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}

/** An object and where it was read from. */
export interface ManifestDocument {
  /** Path relative to manifests/. */
  readonly file: string;
  readonly object: KubeObject;
}

/** Every non-empty document of a YAML stream; a syntax error fails with the file and message. */
export function parseYamlStream(text: string, file: string): unknown[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

function isKubeObject(value: unknown): value is KubeObject {
  if (value === null || typeof value !== 'object') return false;
  const o = value as Record<string, unknown>;
  const metadata = o.metadata as Record<string, unknown> | undefined;
  return typeof o.apiVersion === 'string' && typeof o.kind === 'string' && typeof metadata?.name === 'string';
}

/** `file`'s documents as Kubernetes objects; a document that is not one fails with its index. */
export function readObjects(path: string): KubeObject[] {
  return parseYamlStream(readFileSync(path, 'utf8'), path).map((value, i) => {
    if (!isKubeObject(value)) throw new Error(`${path}, document ${i}: not a Kubernetes object`);
    return value;
  });
}

/** YAML files under manifests/ (relative, sorted), kustomization.yaml excluded. */
export function manifestFiles(): string[] {
  return readdirSync(MANIFESTS_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .map((f) => relative(MANIFESTS_DIR, join(MANIFESTS_DIR, f)))
    .sort();
}

let documents: readonly ManifestDocument[] | undefined;

/** Every object the manifests define, with its file (read once per test file). */
export function manifestDocuments(): readonly ManifestDocument[] {
  documents ??= manifestFiles().flatMap((file) =>
    readObjects(join(MANIFESTS_DIR, file)).map((object) => ({ file, object })),
  );
  return documents;
}

/** The one object of `kind` called `name` (and in `namespace`, when given); fails otherwise. */
export function manifestObject<T extends KubeObject = KubeObject>(
  kind: string,
  name: string,
  namespace?: string,
): T {
  const found = manifestDocuments().filter(
    ({ object: o }) =>
      o.kind === kind &&
      o.metadata.name === name &&
      (namespace === undefined || o.metadata.namespace === namespace),
  );
  if (found.length !== 1)
    throw new Error(`expected one ${kind}/${name} in manifests/, found ${found.length}`);
  return found[0].object as T;
}

/** The parts of kustomization.yaml the tests read. */
export interface Kustomization {
  readonly resources: readonly string[];
  readonly configMapGenerator?: readonly {
    readonly name: string;
    readonly namespace?: string;
    readonly literals?: readonly string[];
  }[];
  readonly images?: readonly { readonly name: string; readonly newName?: string; readonly newTag?: string }[];
}

export function readKustomization(): Kustomization {
  const [doc] = parseYamlStream(
    readFileSync(join(MANIFESTS_DIR, 'kustomization.yaml'), 'utf8'),
    'kustomization.yaml',
  );
  return doc as Kustomization;
}

/**
 * Every object of `kind` in examples/*.yaml, `kind: List` items included, with its file name.
 * The examples are the manifests `podlift plan` documents, so the CRDs must accept them.
 */
export function exampleObjects(kind: string): { file: string; object: KubeObject }[] {
  const dir = join(REPO_ROOT, 'examples');
  const flatten = (value: unknown): unknown[] => {
    const items = (value as { items?: unknown }).items;
    return (value as { kind?: unknown }).kind === 'List' && Array.isArray(items)
      ? items.flatMap(flatten)
      : [value];
  };
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseYamlStream(readFileSync(join(dir, file), 'utf8'), file)
        .flatMap(flatten)
        .filter((o): o is KubeObject => isKubeObject(o) && o.kind === kind)
        .map((object) => ({ file, object })),
    );
}
