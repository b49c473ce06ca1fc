import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/support/duration-sequencer.js';

// Two projects: `unit` (libs/**/*.spec.ts: state machines over fakes, no broker, no database; and
// apps/**/*.spec.ts: the demo's own tests on nestjs-kafka-broadcast/testing, equally broker-free) and
// `integration` (test/**: the real broker and databases). `npm test` runs both; `npm run
// test:unit` runs only `unit`, which never starts or looks for Kafka.
const shared = {
  globals: true,
  // 2 cores, and the broker runs on the same box: one test file at a time here; .ci/run runs two
  // at a time (--fileParallelism --maxWorkers=2), since most of a broker test is waiting.
  fileParallelism: false,
  // Real broker round trips (group joins, topic creation, a 3-node cluster) are slow-ish.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // CPU per file when CI_CPU_LOG names a file (.ci/run): nothing otherwise.
  setupFiles: ['test/support/cpu-per-file.ts'] as string[],
} as const;

export default defineConfig({
  // Vite 8 resolves tsconfig "paths" (nestjs-kafka-broadcast) itself; no plugin needed.
  resolve: { tsconfigPaths: true },
  test: {
    reporters: ['default'],
    fileParallelism: false,
    // The longest files first (test/file-durations.json): what a clean clone cannot learn from
    // Vitest's cache of earlier runs.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: { ...shared, name: 'unit', include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts'] },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'integration',
          include: ['test/**/*.spec.ts'],
          // Finds or starts the real Kafka broker once per run and hands its address to the tests.
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
