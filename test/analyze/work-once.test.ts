// One analyze walk does each piece of work once: every point (the taint step's base point, the
// campaign's points, the overhead comparison's points and its default-mode selection) is profiled
// once through the walk's shared profiler, and the taint report is passed along, not read again.
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analyze/analyze.js';
import { parseAnalysisConfig } from '../../src/analyze/config.js';
import { readWasmFile } from '../../instrument/module-io.js';
import { profileLoops } from '../../src/profile/profile-run.js';
import { sharedProfiler, type LoopProfiler } from '../../src/profile/profile-memo.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-work-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a shared profiler runs each configuration once, and again after a failure', async () => {
  let calls = 0;
  let fail = true;
  const fake: LoopProfiler = async (file, _bytes, run) => {
    calls++;
    if (fail && run.args[0] === 'bad') {
      fail = false;
      throw new Error('trap');
    }
    return { module: file, args: run.args } as unknown as Awaited<ReturnType<LoopProfiler>>;
  };
  const shared = sharedProfiler(fake);
  const bytes = new Uint8Array(8);
  const run = (args: string[]) => ({ invoke: 'run', args, argv: [], repeat: 1, timeoutMs: 1000, json: true });
  const [a, b] = await Promise.all([shared('k.wasm', bytes, run(['1'])), shared('k.wasm', bytes, run(['1']))]);
  expect(a).toBe(b);
  await shared('k.wasm', bytes, run(['2']));
  await expect(shared('k.wasm', bytes, run(['bad']))).rejects.toThrow('trap');
  await shared('k.wasm', bytes, run(['bad']));
  expect(calls).toBe(4);
  expect(shared.runs).toBe(4);
});

test('analyze profiles every point once, the base point included', async () => {
  const kernel = join('build', 'kernels', 'miniapp.wasm');
  const config = parseAnalysisConfig(
    {
      invoke: 'run',
      args: ['{size}', '{iters}', '{regions}', '{balance}', '{cost}'],
      base: { size: 6, iters: 2, regions: 3, balance: 2, cost: 2 },
      parameters: { size: [4, 6], cost: [1, 2] },
      repetitions: 1,
      overhead: { rounds: 1 },
      blame: false,
      plots: 1,
    },
    'once.json',
  );
  const started = new Map<string, number>();
  const profiler = sharedProfiler(async (file, bytes, run) => {
    started.set(run.args.join(','), (started.get(run.args.join(',')) ?? 0) + 1);
    return profileLoops(file, bytes, run);
  });
  const { report } = await analyze({
    file: kernel,
    bytes: readWasmFile(kernel),
    config,
    dir: join(dir, 'out'),
    showProgress: false,
    jobs: 1,
    profiler,
  });
  expect(report.experiment.points.measured).toBe(4);
  // The taint step's base point (6,…,2) is one of the grid's points: four profiles in all.
  expect([...started.keys()].sort()).toEqual(['4,2,3,2,1', '4,2,3,2,2', '6,2,3,2,1', '6,2,3,2,2']);
  expect([...started.values()]).toEqual([1, 1, 1, 1]);
  expect(profiler.runs).toBe(4);
  expect(report.overhead?.points).toBe(4);
});
