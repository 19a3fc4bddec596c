// Vitest global setup: the suite's temporary folders live in one private folder (TMPDIR for the test
// workers and every CLI they start), and the run fails when a test leaves one of its folders behind.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'taintlens-suite-'));
  const outer = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0) {
      // A throw here is only logged (vitest has already set its exit code): fail the run explicitly.
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} temporary folder(s) behind (remove them in afterAll): ${left.sort().join(', ')}`);
    }
  };
}
