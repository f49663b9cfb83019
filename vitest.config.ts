import { defineConfig } from 'vitest/config';

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' };

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], env } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], env, testTimeout: 120_000, hookTimeout: 120_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          env,
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // The suites share one local stack; files run in parallel against it.
          fileParallelism: true,
        },
      },
    ],
  },
});
