import { defineConfig } from 'vitest/config';
import base from './vitest.config';

export default defineConfig({
  test: { ...base.test, include: ['test/core/disruption/**/*.test.ts'] },
});
