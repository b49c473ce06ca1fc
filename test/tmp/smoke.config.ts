import { defineConfig } from 'vitest/config';
export default defineConfig({ resolve: { tsconfigPaths: true }, test: { globals: true, include: ['test/tmp/*.spec.ts'], testTimeout: 120000 } });
