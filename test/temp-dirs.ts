// Vitest global setup: the suite's temporary folders live in one private folder (TMPDIR for the test
// workers and every CLI they start), and the run fails when a test leaves a taintlens-* folder behind.
// Everything else there (other tools' leftovers) goes with the folder at the end.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export function setup(): () => void {
  const outer = tmpdir();
  const root = mkdtempSync(join(outer, 'taintlens-suite-'));
  // Traversable by other users, as /tmp is: munged (the SLURM test's cluster) refuses a socket below a 0700 folder.
  chmodSync(root, 0o755);
  // tsx keeps its compile cache in $TMPDIR/tsx-<user>: point it at the usual one so it stays warm.
  const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  mkdirSync(join(outer, tsxCache), { recursive: true });
  symlinkSync(join(outer, tsxCache), join(root, tsxCache));
  const outerEnv = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (outerEnv === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outerEnv;
    const left = readdirSync(root).filter((name) => name.startsWith('taintlens-'));
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0) {
      // A throw here is only logged (vitest has already set its exit code): fail the run explicitly.
      process.exitCode = 1;
      throw new Error(
        `tests left ${left.length} temporary folder(s) behind (remove them in afterAll): ${left.sort().join(', ')}`,
      );
    }
  };
}
