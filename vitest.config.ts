import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vite 8 resolves tsconfig "paths" (nestjs-kafka-broadcast) itself; no plugin needed.
  resolve: { tsconfigPaths: true },
  test: {
    globals: true,
    include: ['test/**/*.spec.ts', 'libs/**/*.spec.ts'],
    // Finds or starts the real Kafka broker once per run and hands its address to the tests.
    globalSetup: ['test/global-setup.ts'],
    // 2 cores, and the broker runs on the same box: one test file at a time.
    fileParallelism: false,
    // Real broker round trips (group joins, topic creation, a 3-node cluster) are slow-ish.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
