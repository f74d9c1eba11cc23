import { defineConfig } from 'vitest/config';

// Checks over the shared evaluation data (../shared/data, never copied here): `npm run test:data`.
export default defineConfig({
  test: {
    include: ['test/data/**/*.test.ts'],
    testTimeout: 300_000,
  },
});
