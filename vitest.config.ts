// Tests run real modules in worker threads (with a TypeScript loader in source mode), so a test
// that runs a kernel several times needs more than vitest's default 5 s on a 2-core machine.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 120_000,
    // vitest's default leaves one of our two cores idle (files ran one after another: 3m24s);
    // two workers: 2m44s on a clean clone, every test within its limit.
    maxWorkers: 2,
    // Files share a worker's module graph instead of importing every source again (imports: 36 s
    // of the suite's time, 6 s shared). Tests restore what they change (spies, env, PATH).
    isolate: false,
    hookTimeout: 120_000,
    // Temporary folders go to one folder per run; a test that leaves one behind fails the run.
    globalSetup: ['test/temp-dirs.ts'],
  },
});
