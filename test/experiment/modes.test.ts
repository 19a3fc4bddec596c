// Measurement modes over the hot-helper kernel (smooth() is tiny and called 64 n times; sweep
// depends on n, relax on m): default leaves the helper out by Score-P's rule, selective by the
// taint report, a Score-P filter by its rules; --design auto measures lines; overhead compares them.
import { expect, test } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cli } from '../helpers/cli.js';
import { parseScorepFilter } from '../../src/experiment/modes.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-modes-');
const kernel = resolve('native/wasm/hot_helper.wasm');
const callpaths = (file: string, metric: string) =>
  [
    ...new Set(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.metric === metric)
        .map((l) => l.callpath as string),
    ),
  ].sort();

test('default mode prints its rule and leaves out the hot, tiny helper', async () => {
  const output = join(dir, 'default.jsonl');
  const { code, stdout } = await cli([
    'measure',
    kernel,
    '--args',
    '0,5',
    '--vary',
    'n=arg0:100,200',
    '--mode',
    'default',
    '--metrics',
    'time,visits',
    '--repeat',
    '1',
    '-o',
    output,
  ]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/≥ 1000 visits and ≤ 500 instructions per visit/);
  expect(stdout).toMatch(/left out smooth: 6400 visits/);
  expect(callpaths(output, 'time')).toEqual(['<root>', 'run', 'run->relax', 'run->sweep']);
});

test('a Score-P filter written by taint --scorep-filter selects the regions', async () => {
  const filter = join(dir, 'hot.filter');
  expect((await cli(['taint', kernel, '--args', '100,5', '--scorep-filter', filter])).code).toBe(0);
  const output = join(dir, 'filter.jsonl');
  const { code } = await cli([
    'measure',
    kernel,
    '--args',
    '0,5',
    '--vary',
    'n=arg0:100,200',
    '--mode',
    `filter:${filter}`,
    '--metrics',
    'visits',
    '-o',
    output,
  ]);
  expect(code).toBe(0);
  expect(callpaths(output, 'visits')).toEqual(['run', 'run->relax', 'run->sweep']);
});

test('Score-P filter rules: the last matching rule wins, * and ? match', () => {
  const rules = parseScorepFilter(
    'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE sw?ep run* # comment\nSCOREP_REGION_NAMES_END\n',
    'f',
  );
  const included = (name: string) => rules.reduce((inc, r) => (r.pattern.test(name) ? r.include : inc), true);
  expect(['sweep', 'run', 'runner', 'smooth'].map(included)).toEqual([true, true, true, false]);
  expect(() => parseScorepFilter('INCLUDE x\n', 'f.filter')).toThrow(/f.filter: not a Score-P filter/);
});

test('--design auto measures one-parameter lines when no function multiplies parameters', async () => {
  const output = join(dir, 'auto.jsonl');
  const { code, stdout } = await cli([
    'measure',
    kernel,
    '--vary',
    'n=arg0:100,200,400',
    '--vary',
    'm=arg1:10,20,40',
    '--design',
    'auto',
    '--mode',
    'selective',
    '--metrics',
    'instructions',
    '--repeat',
    '2',
    '-o',
    output,
  ]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/5 point\(s\) measured/);
  expect(stdout).toMatch(/no function multiplies two of n, m: .*5 of 9 points, 8 run\(s\) saved/);
});

test('overhead: the documented JSON contract; full costs visibly more than selective on the hot helper', async () => {
  const spec = join(dir, 'overhead.json');
  writeFileSync(
    spec,
    JSON.stringify({
      module: kernel,
      args: ['{n}', '10'],
      parameters: { n: [2000, 4000, 8000] },
      repetitions: 1,
      mode: 'selective',
    }),
  );
  const { code, stdout } = await cli(['overhead', spec, '--json']);
  expect(code).toBe(0);
  const doc = JSON.parse(stdout);
  expect(doc.schema).toBe('taintlens/overhead@1');
  expect(
    doc.modes.map((m: { mode: string; instrumentedFunctions: number }) => [m.mode, m.instrumentedFunctions]),
  ).toEqual([
    ['none', 0],
    ['full', 6],
    ['default', 5],
    ['selective', 3],
  ]);
  const ratio = (mode: string) => doc.modes.find((m: { mode: string }) => m.mode === mode).ratio;
  expect(ratio('none')).toBe(1);
  // Two clock calls around a ~10-instruction body, 64 n times: many times the whole run.
  expect(ratio('full')).toBeGreaterThan(3);
  expect(doc.fullOverSelective).toBeGreaterThan(2);
  expect(Object.keys(doc.models).sort()).toEqual(['default', 'full', 'none', 'selective']);
  const smooth = doc.models.full.find((m: { callpath: string }) => m.callpath === 'run->sweep->smooth');
  expect(smooth.instructions).toMatch(/576 \* n/);
}, 120_000);
