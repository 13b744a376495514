/**
 * The bundle's path when it exists and is up to date with its sources, otherwise undefined.
 * @param root the repository root
 * @param outdir where cli/build.mjs wrote the bundle, relative to root (default `dist/cli`)
 */
export declare function freshBundle(root: string, outdir?: string): string | undefined;
