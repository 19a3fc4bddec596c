// Tests run real modules in worker threads (with a TypeScript loader in source mode), so a test
// that runs a kernel several times needs more than vitest's default 5 s on a 2-core machine.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
