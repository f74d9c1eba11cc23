import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Checks over the shared evaluation data: `npm run test:data` (vitest.data.config.ts).
    exclude: ['test/data/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real child processes, git and LanceDB: keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-results.json' },
  },
});
