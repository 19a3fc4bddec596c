// A calling-context tree that fills does not stop the program: later call paths go to a scratch
// node, the result is the same, and the report counts what was not counted.
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { profileLoops } from '../../src/profile/profile-run.js';
import { treeFullWarning } from '../../src/profile/tree-full.js';

const KERNEL = 'native/wasm/taint_semantics.wasm';
const run = { invoke: 'contexts', args: ['3', '4'], argv: [], repeat: 1, timeoutMs: 60_000 };

test('a full tree degrades: same result, fewer contexts, and the lost entries are reported', async () => {
  const bytes = readFileSync(KERNEL);
  const full = await profileLoops(KERNEL, bytes, run);
  const small = await profileLoops(KERNEL, bytes, run, { contextBytes: 512 });
  expect(full.contextsLost).toBeUndefined();
  expect(small.result).toBe(full.result);
  expect(small.contextsLost).toBeGreaterThan(0);
  expect(small.loops.length).toBeLessThan(full.loops.length);
  expect(small.totalInstructions).toBeLessThan(full.totalInstructions);
  expect(treeFullWarning(small.contextsLost!)).toMatch(
    /^warning: the calling-context tree filled: \d+ function entries found no room/,
  );
});
