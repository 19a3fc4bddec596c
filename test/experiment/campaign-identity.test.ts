// `taintlens measure` stores nothing that is not a measurement: a failed run names its grid point
// and stores nothing for it, and a measurements file is only resumed by the campaign that wrote it
// (its record beside it: module hash, invoke/argv, parameters, repetitions, metrics).
import { describe, expect, test } from 'vitest';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-campaign-');
const path = (name: string) => join(dir, name);
// run(n) counts to n, and divides by n - 3: it traps at n = 3.
const kernel = (extra: number) =>
  wat(`(module
  (func (export "run") (param $n i32) (result i32) (local $i i32)
    (loop $l (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (i32.add (i32.div_s (local.get $i) (i32.sub (local.get $n) (i32.const 3))) (i32.const ${extra}))))`);
writeFileSync(path('k.wasm'), kernel(0));
writeFileSync(path('other.wasm'), kernel(1));
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { params: Record<string, number> });

describe('a failing run during measure', () => {
  test('a trap names the grid point; the points before it are kept, nothing is stored for it', async () => {
    const out = path('trap.jsonl');
    const { code, stdout, stderr } = await cli([
      'measure',
      path('k.wasm'),
      '--vary',
      'n=arg0:1,2,3,4',
      '--metrics',
      'instructions',
      '-o',
      out,
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `taintlens: ${path('k.wasm')}: at point n=3 (nothing stored for it): trap in run: divide by zero\n`,
    );
    expect([...new Set(lines(out).map((l) => l.params.n))]).toEqual([1, 2]);
  });

  test('a WASI command that exits non-zero stores nothing and shows its stderr', async () => {
    const out = path('mini.jsonl');
    // COST above 1,000,000 is rejected by the program: the second point fails.
    const { code, stderr } = await cli([
      'measure',
      'native/wasm/miniapp_cmd.wasm',
      '--vary',
      'cost=argv5:1,2000000',
      '--metrics',
      'time',
      '-o',
      out,
      '--',
      '2',
      '1',
      '1',
      '1',
      '1',
    ]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      "taintlens: native/wasm/miniapp_cmd.wasm: at point cost=2000000 (nothing stored for it): the program exited with code 2; its stderr:\n  | miniapp: invalid argument '2000000'\n",
    );
    const stored = lines(out);
    expect(stored.length).toBe(5);
    expect(stored.every((l) => l.params.cost === 1)).toBe(true);
  });
});

describe('resuming a campaign', () => {
  const measure = (out: string, ...extra: string[]) =>
    cli(['measure', path('k.wasm'), '--vary', 'n=arg0:1,2', '--metrics', 'instructions', '-o', out, ...extra]);

  test('the record beside the measurements; the same campaign resumes, with more grid values too', async () => {
    const out = path('same.jsonl');
    expect((await measure(out)).code).toBe(0);
    const record = JSON.parse(readFileSync(`${out}.campaign.json`, 'utf8'));
    expect(record).toMatchObject({
      schema: 'taintlens/campaign@1',
      invoke: 'run',
      args: ['<n>'],
      argv: [],
      repeat: 5,
      metrics: ['instructions'],
    });
    expect(record.module.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await measure(out)).stdout).toMatch(/0 point\(s\) measured, 2 already there/);
    expect((await measure(out, '--invoke', 'run')).stdout).toMatch(/0 point\(s\) measured, 2 already there/);
    const grown = await cli([
      'measure',
      path('k.wasm'),
      '--vary',
      'n=arg0:1,2,4',
      '--metrics',
      'instructions',
      '-o',
      out,
    ]);
    expect(grown.stdout).toMatch(/1 point\(s\) measured, 2 already there/);
    expect(JSON.parse(readFileSync(`${out}.campaign.json`, 'utf8')).parameters[0].values).toEqual([1, 2, 4]);
    // The file itself stays Extra-P JSON Lines.
    expect((await cli(['model', out, '--metric', 'instructions', '--json'])).code).toBe(0);
  });

  // One measured campaign, copied for each refusal.
  const measured = path('measured.jsonl');
  test.each([
    [
      'another module',
      ['measure', path('other.wasm'), '--vary', 'n=arg0:1,2', '--metrics', 'instructions'],
      /holds another campaign \(module: \S+k\.wasm \(sha256 [0-9a-f]{12}\) there, \S+other\.wasm \(sha256 [0-9a-f]{12}\) here\)/,
    ],
    [
      'other repetitions',
      ['measure', path('k.wasm'), '--vary', 'n=arg0:1,2', '--metrics', 'instructions', '--repeat', '2'],
      /holds another campaign \(--repeat: 5 there, 2 here\)/,
    ],
    [
      'other metrics',
      ['measure', path('k.wasm'), '--vary', 'n=arg0:1,2', '--metrics', 'time,instructions'],
      /holds another campaign \(--metrics: instructions there, instructions,time here\)/,
    ],
    [
      'other parameter names',
      ['measure', path('k.wasm'), '--vary', 'size=arg0:1,2', '--metrics', 'instructions'],
      /holds measurements over \{n\} \(line 1\), not \{size\}/,
    ],
  ])('refuses %s with one line, and leaves the file alone', async (_name, args, message) => {
    const out = path(`refuse-${_name.replace(/ /g, '-')}.jsonl`);
    if (!existsSync(measured)) expect((await measure(measured)).code).toBe(0);
    copyFileSync(measured, out);
    copyFileSync(`${measured}.campaign.json`, `${out}.campaign.json`);
    const before = readFileSync(out, 'utf8');
    const { code, stdout, stderr } = await cli([...args, '-o', out]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(out, 'utf8')).toBe(before);
  });

  test('refuses a file that is not JSON Lines, and measurements without a campaign record', async () => {
    const text = path('extrap.txt');
    writeFileSync(text, 'PARAMETER n\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\n');
    const notJsonl = await measure(text);
    expect(notJsonl.code).toBe(1);
    expect(notJsonl.stderr).toMatch(
      /extrap\.txt: line 1 is not a JSON Lines measurement, so this is not a campaign to resume/,
    );
    expect(readFileSync(text, 'utf8')).toMatch(/^PARAMETER n/);

    const foreign = path('foreign.jsonl');
    writeFileSync(foreign, '{"params":{"n":1},"value":3}\n');
    const unrecorded = await measure(foreign);
    expect(unrecorded.code).toBe(1);
    expect(unrecorded.stderr).toMatch(
      /foreign\.jsonl: has measurements but no campaign record \(\S+foreign\.jsonl\.campaign\.json\)/,
    );
    expect(existsSync(`${foreign}.campaign.json`)).toBe(false);
  });
});
