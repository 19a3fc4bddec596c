// The rank count as an experiment parameter: `--vary p=ranks:...` and the spec's "ranks" field;
// the communication metrics: commtime per repetition, and refused for a module that passes no messages.
import { describe, expect, test } from 'vitest';
import { argumentsAt, parseVary, ranksAt } from '../../src/experiment/grid.js';
import { parseSpec } from '../../src/experiment/spec.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';

describe('ranks as parameter p', () => {
  test('--vary p=ranks:2,4,8 varies the rank count; a fixed --ranks applies where nothing varies it', () => {
    const p = parseVary('p=ranks:2,4,8');
    expect(p).toEqual({ name: 'p', target: { kind: 'ranks', index: 0 }, values: [2, 4, 8] });
    expect(ranksAt({ n: 8, p: 4 }, [p])).toBe(4);
    expect(ranksAt({ n: 8 }, [parseVary('n=arg0:8')], 3)).toBe(3);
    expect(ranksAt({ n: 8 }, [parseVary('n=arg0:8')])).toBeUndefined();
    expect(() => parseVary('p=ranks:2,2.5')).toThrow(/rank counts must be whole numbers/);
  });

  test('the spec takes "ranks": "{p}" (a parameter) or a number', () => {
    const varied = parseSpec(
      { module: 'k.wasm', args: ['{n}', 1], ranks: '{p}', parameters: { n: [8, 16], p: [2, 4] } },
      'spec.json',
    );
    expect(varied.parameters.map((q) => [q.name, q.target.kind])).toEqual([
      ['n', 'arg'],
      ['p', 'ranks'],
    ]);
    expect(varied.ranks).toBeUndefined();
    const fixed = parseSpec({ module: 'k.wasm', args: ['{n}'], ranks: 4, parameters: { n: [8, 16] } }, 'spec.json');
    expect(fixed.ranks).toBe(4);
  });

  test('a parameter can be the rank count and an argument at once (CoMD is told its rank grid: -i {p})', () => {
    const spec = parseSpec(
      { module: 'k.wasm', argv: ['-i', '{p}', '-x', '{n}'], ranks: '{p}', parameters: { p: [1, 2, 4], n: [8] } },
      'spec.json',
    );
    expect(spec.parameters.map((q) => [q.name, q.target.kind, q.target.index, q.ranks])).toEqual([
      ['p', 'argv', 1, true],
      ['n', 'argv', 3, undefined],
    ]);
    expect(ranksAt({ p: 4, n: 8 }, spec.parameters)).toBe(4);
    expect(argumentsAt({ p: 4, n: 8 }, spec.parameters, 'argv', spec.argv)).toEqual(['-i', '4', '-x', '8']);
  });

  test('bad "ranks" fields are one line naming the spec and the field', () => {
    const spec =
      (ranks: unknown, p = [2, 4]) =>
      () =>
        parseSpec({ module: 'k.wasm', args: ['{n}'], ranks, parameters: { n: [8], p } }, 'spec.json');
    expect(spec('{q}')).toThrow(/^spec\.json: field 'ranks': placeholder \{q\} names no parameter/);
    expect(spec(0)).toThrow(/^spec\.json: field 'ranks': must be a whole number from 1 to 32/);
    expect(spec('{p}', [2, 64])).toThrow(
      /^spec\.json: field 'parameters\.p': rank counts must be whole numbers from 1 to 32, got 64/,
    );
  });
});

test('dirRw folders are writable preopens, dir folders read-only (CoMD writes its report to .)', () => {
  const here = mkdtempSync(join(tmpdir(), 'taintlens-dirrw-'));
  try {
    const spec = parseSpec(
      { module: 'k.wasm', argv: ['{n}'], parameters: { n: [1] }, dir: [`${here}:in`], dirRw: [`${here}:.`] },
      join(here, 'spec.json'),
    );
    expect(spec.wasi?.preopens).toEqual([
      { host: here, guest: 'in', writable: false },
      { host: here, guest: '.', writable: true },
    ]);
    expect(() =>
      parseSpec(
        { module: 'k.wasm', argv: ['{n}'], parameters: { n: [1] }, dirRw: ['missing'] },
        join(here, 'spec.json'),
      ),
    ).toThrow(/field 'dirRw\[0\]': .*missing is not a folder/);
  } finally {
    rmSync(here, { recursive: true, force: true });
  }
});

test('communication metrics of a module that passes no messages are refused, naming the module', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-comm-metrics-'));
  try {
    const file = join(dir, 'plain.wasm');
    writeFileSync(file, wat('(module (func (export "run") (param i32) (result i32) (local.get 0)))'));
    const output = join(dir, 'out.jsonl');
    const { code, stderr } = await cli(['measure', file, '--vary', 'n=arg0:1,2', '--metrics', 'bytes', '-o', output]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /plain\.wasm: bytes measure an SPMD run's communication, and the module does not import taintlens_mp/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('commtime: per repetition, the time of the rank that spent the most in each MPI call', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-commtime-'));
  try {
    const kernel = join(import.meta.dirname, '..', '..', 'native', 'wasm', 'spmd_stencil.wasm');
    const output = join(dir, 'out.jsonl');
    const { code, stderr } = await cli([
      'measure',
      kernel,
      '--vary',
      'p=ranks:2',
      '--args',
      '16,2',
      '--metrics',
      'commtime,calls',
      '--repeat',
      '2',
      '-o',
      output,
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines: Array<{ callpath: string; metric: string; value: number }> = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const of = (metric: string) => lines.filter((l) => l.metric === metric);
    expect(of('commtime').map((l) => l.callpath)).toEqual([
      'MPI_Allreduce',
      'MPI_Sendrecv',
      'MPI_Allreduce',
      'MPI_Sendrecv',
    ]);
    for (const line of of('commtime')) expect(line.value).toBeGreaterThan(0);
    // Calls are exact and written once: 2 steps, both ranks, an allreduce and 2 sendrecvs per step.
    expect(of('calls').map((l) => [l.callpath, l.value])).toEqual([
      ['MPI_Allreduce', 6],
      ['MPI_Sendrecv', 8],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
