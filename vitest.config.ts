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
  // The brokers a test starts itself (clusters, restarts, secured brokers) live for minutes: C1
  // alone compiles far less than the tiered JIT, and such a broker took 3.2-3.5 CPU-seconds in
  // its first 35 s against 5.5-6.0 (2026-12-07, with scripts/kafka/class-data.mjs's archive), and
  // was ready in 2.9 s against 4.3. The shared broker (.ci/run, test/global-setup.ts: Vitest's
  // main process, which this does not reach) serves the whole run and keeps the tiered JIT.
  env: {
    KAFKA_JVM_OPTS: [process.env.KAFKA_JVM_OPTS, '-XX:TieredStopAtLevel=1']
      .filter(Boolean)
      .join(' '),
  },
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
