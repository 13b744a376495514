import base from './stryker.config.mjs';
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation-options.config.ts', related: false },
  concurrency: 1,
  incremental: false,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: '/tmp/options-mutation.json' },
};
