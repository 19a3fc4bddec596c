// Passes composed in one module (`--mode loops,taint`): the taint pass runs last and leaves the
// other passes' counters, context-tree accesses and helper calls alone, so the program computes
// what it does alone (it trapped when taint shadowed the loop profiler's stores to its own region).
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { readModule, emitModule } from '../../instrument/module-io.js';
import { analyzeModule } from '../../instrument/sites.js';
import { applyMemoryLayout, planMemoryLayout } from '../../instrument/memory-layout.js';
import { applyTaint, taintRegions } from '../../instrument/passes/taint.js';
import { programExpressions } from '../../instrument/program-expressions.js';
import { tempDir } from '../helpers/temp.js';

const textstat = 'native/wasm/textstat.wasm';
const host = ['--dir', 'native/data:data', '--stdin', 'native/data/input.txt', '--clock', 'virtual'];
const argv = ['--', '3', 'data/poem.txt'];

test.each(['taint,loops', 'measure,taint'])('--mode %s runs with the original output', async (modes) => {
  const reference = JSON.parse((await cli(['run', textstat, ...host, '--json', ...argv])).stdout).stdout as string;
  const out = join(tempDir('taintlens-composed-'), 'textstat.wasm');
  expect((await cli(['instrument', textstat, '--mode', modes, '-o', out])).code).toBe(0);
  const run = await cli(['run', out, ...host, '--json', ...argv]);
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout).stdout).toBe(reference);
});

test('flattening keeps the program expressions the taint pass recognises (alone, the set changes nothing)', () => {
  const bytes = new Uint8Array(readFileSync(textstat));
  const emitted = [false, true].map((withProgram) => {
    const module = readModule(bytes, textstat);
    try {
      const analysis = analyzeModule(module);
      const layout = planMemoryLayout(module, taintRegions(4 << 20, undefined, undefined), {});
      applyMemoryLayout(module, layout, {});
      applyTaint(
        module,
        analysis,
        layout,
        {},
        withProgram ? { expressions: programExpressions(analysis), locals: new Map() } : undefined,
      );
      return Buffer.from(emitModule(module, 'taint'));
    } finally {
      module.dispose();
    }
  });
  expect(emitted[1]!.equals(emitted[0]!)).toBe(true);
});
