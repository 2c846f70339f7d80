import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default, one worker fewer than the cores, is one on a 2-core machine; the slow files
    // spend much of their time waiting on Python children and CLI processes, so two took 231 and
    // 240 s here against 324 s for one (2026-12-04, this 2-core machine alone).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
