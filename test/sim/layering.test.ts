import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import rules around the simulator (DESIGN.md, layout): product code never imports sim/ or
 * test/, sim/ never imports test/, bench/ builds its worlds from sim/ and never from test/, and
 * a fake never imports the adapter it stands in for, or it could not catch that adapter's bugs.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PRODUCT = ['shared', 'functions', 'watcher', 'cli', 'infra'];

/** Every TypeScript file under `folder` (relative to the repository root). */
function sources(folder: string): string[] {
  const start = join(ROOT, folder);
  if (!existsSync(start)) return [];
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  walk(start);
  return files;
}

/** The repository-relative targets of a file's relative imports, static and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']*)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => relative(ROOT, resolve(dirname(file), specifier)));
}

/** `file: import` for every import of a file under `folders` that lands under one of `forbidden`. */
function violations(folders: readonly string[], forbidden: readonly string[]): string[] {
  return folders.flatMap((folder) =>
    sources(folder).flatMap((file) =>
      importsOf(file)
        .filter((target) => forbidden.some((prefix) => target === prefix || target.startsWith(`${prefix}/`)))
        .map((target) => `${relative(ROOT, file)}: ${target}`),
    ),
  );
}

describe('layering', () => {
  it('finds the imports it checks', () => {
    expect(importsOf(join(ROOT, 'sim/world/aws/ec2-world.ts'))).toContain('sim/fakes/aws/ec2');
  });

  it('keeps product code away from the simulator and the tests', () => {
    expect(violations(PRODUCT, ['sim', 'test'])).toEqual([]);
  });

  it('keeps the simulator and the benchmarks away from the tests', () => {
    expect(violations(['sim', 'bench'], ['test'])).toEqual([]);
  });

  it('keeps every fake independent of the adapters it stands in for', () => {
    expect(violations(['sim/fakes'], ['shared/aws', 'shared/kube'])).toEqual([]);
  });
});
