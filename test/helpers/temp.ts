// Temporary folders for tests: each is removed when the test that made it ends, or after the file's
// tests when made while the file is collected (test/temp-dirs.ts fails the run on any left behind).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a test (onTestFinished throws there): made at collection time or in a hook.
    afterAll(remove);
  }
  return dir;
}
