import { defineConfig } from 'vitest/config';

// No X-Ray daemon in tests: the X-Ray SDK stays in manual mode (no process-wide async hook).
const env = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  AWS_XRAY_MANUAL_MODE: 'true',
  AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
};

export default defineConfig({
  test: {
    // vitest's default is one worker fewer than the cores: a single worker on CI's 2 cores, where the
    // integration files (which often wait on the stack, its pollers, Chromium and child processes) ran
    // one after the other. Two at a time fill those waits; three made the admin-CLI-heavy tests slow
    // enough to near their 60 s timeout on a loaded machine. VITEST_MAX_WORKERS overrides it.
    maxWorkers: 2,
    projects: [
      // Handlers called directly write no EMF to the test output (the EMF test turns it back on). The timeout guards
      // against hangs only: vitest's 5 s failed a PDF rendering under a load of 30 on 2 cores.
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          env: { ...env, POWERTOOLS_METRICS_DISABLED: 'true' },
          testTimeout: 60_000,
        },
      },
      { test: { name: 'sdk', include: ['sdk/test/**/*.test.ts'], env } },
      // A synth of the whole stack per file: 120 s failed stack.test.ts's beforeAll at a load of 25 (a hang guard only).
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], env, testTimeout: 600_000, hookTimeout: 600_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          env,
          globalSetup: ['test/integration/global-setup.ts'],
          // A guard against hangs, not a performance bound: CI's 2 cores run two files at once beside the stack,
          // Chromium and the CLIs, and a browser journey quiet at 16 s took over 60 s there.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // The suites share one local stack; files run in parallel against it.
          fileParallelism: true,
        },
      },
    ],
  },
});
