// Mutation testing (`npm run test:mutation`, not part of `npm test`): Stryker changes the code
// one small mutation at a time and reruns the tests that cover it; a mutant no test notices
// is a behaviour nothing checks. Narrow it with `-- --mutate <files>`: a whole run is slow.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts', related: true },
  mutate: ['shared/core/**/*.ts', 'shared/aws/**/*.ts'],
  checkers: [],
  // Stryker rewrites tsconfig.json through the TypeScript compiler API, which the native
  // TypeScript 7 compiler does not ship; vitest transpiles with esbuild and needs no tsconfig
  // rewriting, so point Stryker at none.
  tsconfigFile: 'stryker-has-no-tsconfig.json',
  concurrency: 2,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
