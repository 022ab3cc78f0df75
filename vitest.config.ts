import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/global-setup.ts'],
    // Checks every response of every test against the served OpenAPI document.
    setupFiles: ['test/openapi/conformance.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
