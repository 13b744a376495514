import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import rules of DESIGN.md's layout, checked on every run so a break shows up in review:
 * core is pure (itself, zod and croner only) and its rooms depend on each other without cycles; the
 * AWS and Kubernetes adapters depend on core and their own client libraries, never on each
 * other; product code never imports sim/ or test/; sim/ and bench/ never import test/; and a
 * fake never imports the adapter it stands in for, or it could not catch that adapter's bugs.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PRODUCT = ['shared', 'functions', 'watcher', 'cli', 'infra'];

/** Every TypeScript file under `folder` (repository-relative paths). */
function sources(folder: string): string[] {
  const start = join(ROOT, folder);
  if (!existsSync(start)) return [];
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(relative(ROOT, path));
    }
  };
  walk(start);
  return files;
}

/** A file's import specifiers, static and dynamic (type-only imports included). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);
}

/** Repository-relative targets of a file's relative imports, without extension. */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(dirname(join(ROOT, file)), s)).replace(/\.ts$/, ''));
}

/** Package names a file imports (`@scope/name`, `name`, `node:x`). */
function packagesOf(file: string): string[] {
  return specifiersOf(file)
    .filter((s) => !s.startsWith('.'))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** `file: import` for every relative import of a file under `folders` that lands under `forbidden`. */
function violations(folders: readonly string[], forbidden: readonly string[]): string[] {
  return folders.flatMap((folder) =>
    sources(folder).flatMap((file) =>
      importsOf(file)
        .filter((target) => forbidden.some((prefix) => under(target, prefix)))
        .map((target) => `${file}: ${target}`),
    ),
  );
}

/** `file: package` for every package import of files under `folder` not matched by `allowed`. */
function packageViolations(folder: string, allowed: (name: string) => boolean): string[] {
  return sources(folder).flatMap((file) =>
    packagesOf(file)
      .filter((name) => !allowed(name))
      .map((name) => `${file}: ${name}`),
  );
}

/**
 * The core room a file belongs to. `ports/time.ts` is a room of its own: every room may read
 * the injected clock (the unavailable-offerings TTL does), while the other ports name types
 * from model, catalog and state.
 */
function coreRoom(path: string): string | undefined {
  if (!under(path, 'shared/core')) return undefined;
  const rest = path.slice('shared/core/'.length);
  if (rest === 'ports/time') return 'time';
  return rest.split('/')[0];
}

/** The edges room → room of core's imports. */
function coreRoomGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources('shared/core')) {
    const from = coreRoom(file.replace(/\.ts$/, ''))!;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of importsOf(file)) {
      const to = coreRoom(target);
      if (to && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** One cycle in `graph` as `a → b → a`, or undefined. */
function findCycle(graph: ReadonlyMap<string, ReadonlySet<string>>): string | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node].join(' → ');
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/** The file-level import graph of the product code. */
function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const folder of PRODUCT)
    for (const file of sources(folder)) graph.set(file.replace(/\.ts$/, ''), new Set(importsOf(file)));
  return graph;
}

describe('architecture', () => {
  it('finds the imports it checks', () => {
    expect(importsOf('sim/world/aws/ec2-world.ts')).toContain('sim/fakes/aws/ec2');
    expect(packagesOf('shared/kube/kube-api.ts')).toContain('@kubernetes/client-node');
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['a'])],
        ]),
      ),
    ).toBe('a → b → a');
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set<string>()],
        ]),
      ),
    ).toBeUndefined();
  });

  it('keeps core pure: it imports itself, zod and croner (a pure cron parser), nothing else', () => {
    expect(packageViolations('shared/core', (name) => name === 'zod' || name === 'croner')).toEqual([]);
    expect(
      violations(['shared/core'], ['shared/aws', 'shared/kube', 'shared/runtime', 'watcher', 'functions']),
    ).toEqual([]);
  });

  it("orders core's rooms without cycles", () => {
    const graph = coreRoomGraph();
    expect([...graph.keys()].sort()).toEqual(
      expect.arrayContaining(['catalog', 'model', 'ports', 'scheduling', 'state']),
    );
    expect(findCycle(graph)).toBeUndefined();
    expect([...(graph.get('model') ?? [])]).toEqual([]);
  });

  it('has no import cycle between files of the product code', () => {
    expect(findCycle(fileGraph())).toBeUndefined();
  });

  it('keeps each adapter on core and its own client library', () => {
    expect(violations(['shared/aws'], ['shared/kube', 'watcher', 'functions', 'cli'])).toEqual([]);
    expect(violations(['shared/kube'], ['shared/aws', 'watcher', 'functions', 'cli'])).toEqual([]);
    expect(
      packageViolations(
        'shared/kube',
        (name) => ['@kubernetes/client-node', 'zod'].includes(name) || name.startsWith('node:'),
      ),
    ).toEqual([]);
    expect(
      packageViolations(
        'shared/aws',
        (name) =>
          /^@(aws-sdk|smithy)\//.test(name) ||
          ['zod', 'yaml'].includes(name) ||
          // Bottlerocket user data is TOML.
          name === 'smol-toml' ||
          name.startsWith('node:'),
      ),
    ).toEqual([]);
    expect(violations(['shared/runtime'], ['shared/aws', 'shared/kube'])).toEqual([]);
    // The one YAML reader (shared/yaml): core and the `yaml` package, nothing else.
    expect(violations(['shared/yaml'], ['shared/aws', 'shared/kube', 'shared/runtime'])).toEqual([]);
    expect(packageViolations('shared/yaml', (name) => name === 'yaml')).toEqual([]);
  });

  it("reads YAML with one library, through shared/yaml wherever the input is a user's", () => {
    const all = [...PRODUCT, 'sim', 'bench'].flatMap((folder) => sources(folder));
    expect(all.filter((file) => packagesOf(file).includes('js-yaml'))).toEqual([]);
    const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys({ ...packageJson.dependencies, ...packageJson.devDependencies })).not.toContain(
      'js-yaml',
    );
  });

  it('keeps product code away from the simulator and the tests', () => {
    expect(violations(PRODUCT, ['sim', 'test', 'bench'])).toEqual([]);
  });

  it('keeps the simulator and the benchmarks away from the tests', () => {
    expect(violations(['sim', 'bench'], ['test'])).toEqual([]);
  });

  it('keeps every fake independent of the adapters it stands in for', () => {
    expect(violations(['sim/fakes'], ['shared/aws', 'shared/kube'])).toEqual([]);
  });
});
