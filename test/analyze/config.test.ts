// The analysis config: every mistake is one line naming the config file and the field, exit 1,
// before any run; the parameter proposal ranks parameters by the work they reach.
import { expect, test } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { parseAnalysisConfig } from '../../src/analyze/config.js';
import { chooseParameters, proposedValues, workPerParameter } from '../../src/analyze/propose.js';
import type { LoopEntry } from '../../src/profile/loop-profile.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-analyze-config-');
const good = {
  invoke: 'run',
  args: ['{size}', '{iters}', 3, 2, '{cost}'],
  base: { size: 6, iters: 2, cost: 1 },
  parameters: { size: [4, 6, 8], cost: [1, 2, 3] },
  target: { size: 64 },
};

test.each([
  [{ ...good, repetitons: 3 }, "field 'repetitons': unknown field"],
  [{ ...good, module: 'x.wasm' }, "field 'module': the module is the command's argument"],
  [
    { ...good, base: { size: 6, iters: 2 } },
    "field 'base.cost': missing: placeholder {cost} in args[4] needs a base value",
  ],
  [{ ...good, base: { ...good.base, cost: 'one' } }, "field 'base.cost': must be a number"],
  [{ ...good, base: { ...good.base, n: 3 } }, "field 'base.n': no placeholder {n} in args"],
  [{ ...good, parameters: { size: [4, 'x'] } }, "field 'parameters.size[1]': must be a positive number"],
  [
    { ...good, parameters: { sizes: [4, 8] } },
    "field 'parameters.sizes': not a parameter (placeholders: size, iters, cost)",
  ],
  [{ ...good, target: { cost: -1 } }, "field 'target.cost': must be a positive number"],
  [{ ...good, args: ['{size}x'] }, "field 'args[0]': a placeholder is the whole argument"],
  [{ ...good, overhead: { round: 2 } }, "field 'overhead.round': unknown field (rounds)"],
  [{ ...good, blame: { period: 0 } }, "field 'blame.period': must be a whole number of instructions ≥ 1"],
  [{ ...good, args: [1, 2] }, "field 'args': name at least one parameter"],
  [{ ...good, overhead: 3 }, 'field \'overhead\': must be {"rounds": N} or false'],
  [{ ...good, scale: [1] }, "field 'scale': must be a list of at least two positive multipliers"],
  [{ ...good, maxParameters: 9 }, "field 'maxParameters': must be a whole number from 1 to 8"],
  [{ ...good, blame: { points: [''] } }, "field 'blame.points[0]': must be a function name"],
  [{ ...good, invoke: 7 }, "field 'invoke': must be the name of an export"],
  [
    { ...good, args: ['{size}', true] },
    'field \'args[1]\': must be a number, a string or a "{name}" placeholder, got true',
  ],
])('a config with a mistake: %j', (config, message) => {
  expect(() => parseAnalysisConfig(config, 'a.json')).toThrow(`a.json: ${message}`);
});

test('the command refuses a config with a mistake in one line naming the file and the field, exit 1, and writes nothing', async () => {
  const config = join(dir, 'bad.json');
  writeFileSync(config, JSON.stringify({ ...good, repetitions: 0 }));
  const out = join(dir, 'out');
  const { code, stdout, stderr } = await cli([
    'analyze',
    'build/kernels/miniapp.wasm',
    '--config',
    config,
    '--out',
    out,
  ]);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toBe(`taintlens: ${config}: field 'repetitions': must be a whole number ≥ 1\n`);
  expect(existsSync(out)).toBe(false);
  const notJson = join(dir, 'broken.json');
  writeFileSync(notJson, '{"args": [1,\n');
  const broken = await cli(['analyze', 'build/kernels/miniapp.wasm', '--config', notJson, '--out', out]);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toMatch(
    new RegExp(`^taintlens: ${notJson.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: line 2: not valid JSON`),
  );
});

test('a folder holding the analysis of another module is refused in one line before anything in it changes', async () => {
  const config = join(dir, 'good.json');
  writeFileSync(config, JSON.stringify(good));
  const out = join(dir, 'taken');
  mkdirSync(out);
  const identity = JSON.stringify({ module: 'other.wasm', sha256: '0'.repeat(64), invoke: 'run' });
  writeFileSync(join(out, 'analysis-identity.json'), identity);
  writeFileSync(join(out, 'taint.json'), 'kept');
  const { code, stdout, stderr } = await cli([
    'analyze',
    'build/kernels/miniapp.wasm',
    '--config',
    config,
    '--out',
    out,
  ]);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr.trim().split('\n')).toEqual([
    `taintlens: ${out}: holds the analysis of another module (other.wasm); give another --out, or remove the folder`,
  ]);
  expect(readFileSync(join(out, 'taint.json'), 'utf8')).toBe('kept');
  expect(readFileSync(join(out, 'analysis-identity.json'), 'utf8')).toBe(identity);
});

test('without named parameters the config proposes the ones reaching the most work, at most maxParameters', () => {
  const { parameters, ...rest } = good;
  expect(parameters).toBeDefined();
  const config = parseAnalysisConfig({ ...rest, maxParameters: 2 }, 'a.json');
  expect(config.parameters).toBeNull();
  expect(config.maxParameters).toBe(2);
  // run: L0 (iters) → call → L1 (size) → L2 (size, cost); a second context of L2 outside L0.
  const entry = (id: string, loop: string, parent: string | null, inclusive: number): LoopEntry => ({
    id,
    loop,
    function: 'f',
    callpath: 'run->f',
    callsites: [],
    parent,
    depth: 1,
    entries: 1,
    iterations: 1,
    instructions: 0,
    inclusiveInstructions: inclusive,
    calls: [],
  });
  const entries = [
    entry('L0#1', 'L0', null, 900),
    entry('L1#2', 'L1', 'L0#1', 800),
    entry('L2#2', 'L2', 'L1#2', 500),
    entry('L2#3', 'L2', null, 50),
  ];
  const loopParams = new Map([
    ['L0', ['iters']],
    ['L1', ['size']],
    ['L2', ['size', 'cost']],
  ]);
  const work = workPerParameter(['size', 'iters', 'cost'], loopParams, entries, 1000);
  // size: L1 (800) and the outer L2 context (50), not L2 inside L1 again.
  expect(work).toEqual([
    { name: 'iters', instructions: 900, share: 0.9, loops: 1 },
    { name: 'size', instructions: 850, share: 0.85, loops: 3 },
    { name: 'cost', instructions: 550, share: 0.55, loops: 2 },
  ]);
  const chosen = chooseParameters([...work, { name: 'balance', instructions: 0, share: 0, loops: 0 }], null, 2);
  expect(chosen.filter((c) => c.chosen).map((c) => c.name)).toEqual(['iters', 'size']);
  expect(chosen.find((c) => c.name === 'cost')!.why).toBe('only #3: at most 2 proposed');
  expect(chosen.find((c) => c.name === 'balance')!.why).toBe('drives no loop: prunable');
  expect(
    chooseParameters(work, ['cost'], 2)
      .filter((c) => c.chosen)
      .map((c) => c.name),
  ).toEqual(['cost']);
  expect(proposedValues(6, [1, 2, 3, 4, 5])).toEqual([6, 12, 18, 24, 30]);
  expect(proposedValues(1, [1, 1.2, 1.4])).toEqual([1, 2, 3]);
});
