/**
 * The error a left-out package's stand-in throws when its feature is reached after all
 * (see ../function-bundle.ts `alias`): loud, naming the package and the feature, rather than a
 * bundle that misbehaves quietly.
 */
export function leftOut(pkg: string, feature: string): never {
  throw new Error(
    `${pkg} is left out of podlift's function bundles (infra/parts/function-bundle.ts): ${feature} is not supported there`,
  );
}
