// `taintlens experiment SPEC --out DIR`: a sweep of a bundled kernel, spec validation, and a
// campaign killed with SIGKILL halfway that resumes with every point exactly once.
import { expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cli, cliProcessArgs } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-experiment-');
const kernel = resolve('native/wasm/hot_helper.wasm');
const writeSpec = (name: string, spec: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(spec));
  return file;
};
const readLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { params: Record<string, number>; callpath: string; metric: string; value: number });

test('a sweep writes exactly the expected JSON Lines; instruction counts repeat exactly and scale with the trip counts', async () => {
  const spec = writeSpec('sweep.json', {
    module: kernel,
    args: ['{n}', '{m}'],
    parameters: { n: [100, 200, 400], m: [10, 30] },
    repetitions: 2,
    metrics: ['time', 'instructions', 'visits'],
    mode: 'selective',
    taint: { params: { n: 'arg0', m: 'arg1' } },
  });
  const out = join(dir, 'sweep');
  const { code, stdout, stderr } = await cli(['experiment', spec, '--out', out, '--jobs', '2']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toMatch(/6 point\(s\) measured/);
  expect(stdout).toMatch(/left out smooth/);
  const lines = readLines(join(out, 'measurements.jsonl'));
  // Per point: <root> (the whole run) time ×2; run, run->sweep, run->relax: time ×2, instructions,
  // visits. Nothing runs outside a region (so no <root> instructions): smooth counts to run->sweep.
  const regions = ['run', 'run->sweep', 'run->relax'];
  expect(lines).toHaveLength(6 * (2 + regions.length * 4));
  for (const line of lines) expect(Object.keys(line).sort()).toEqual(['callpath', 'metric', 'params', 'value']);
  const instr = (n: number, m: number, path: string) =>
    lines.find((l) => l.params.n === n && l.params.m === m && l.callpath === path && l.metric === 'instructions')!
      .value;
  // sweep's count does not see m and grows exactly linearly in n (smooth folded into it).
  expect(instr(100, 10, 'run->sweep')).toBe(instr(100, 30, 'run->sweep'));
  const step = instr(200, 10, 'run->sweep') - instr(100, 10, 'run->sweep');
  expect(instr(400, 10, 'run->sweep') - instr(200, 10, 'run->sweep')).toBe(2 * step);
  expect(lines.filter((l) => l.metric === 'visits' && l.callpath === 'run->sweep').every((l) => l.value === 1)).toBe(
    true,
  );
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  expect(summary.schema).toBe('taintlens/summary@1');
  expect(summary.instrumentedFunctions).toBe(3);
  expect(summary.points).toHaveLength(6);
  expect(summary.points[0].regions.map((r: { callpath: string }) => r.callpath).sort()).toEqual([...regions].sort());
  expect(JSON.parse(readFileSync(join(out, 'spec.json'), 'utf8')).parameters.n).toEqual([100, 200, 400]);
  expect(JSON.parse(readFileSync(join(out, 'environment.json'), 'utf8')).node).toBe(process.version);

  const modeled = await cli(['model', join(out, 'measurements.jsonl'), '--metric', 'instructions', '--json']);
  expect(modeled.code).toBe(0);
  const sweep = JSON.parse(modeled.stdout).models.find((m: { callpath: string }) => m.callpath === 'run->sweep');
  expect(sweep.model).toMatch(/\* n$/);
  expect(sweep.model).not.toMatch(/m/);
});

test('full instrumentation keeps a ring of the last visits and reports the trace volume', async () => {
  const spec = writeSpec('full.json', {
    module: kernel,
    args: ['{n}', '5'],
    parameters: { n: [50] },
    repetitions: 1,
    metrics: ['time'],
    mode: 'full',
    trace: 4,
  });
  const out = join(dir, 'full');
  const { code, stdout } = await cli(['experiment', spec, '--out', out, '--json']);
  expect(code).toBe(0);
  const doc = JSON.parse(stdout);
  expect(doc.instrumentedFunctions).toBe(6);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  const smooth = summary.points[0].regions.find((r: { callpath: string }) => r.callpath === 'run->sweep->smooth');
  expect(smooth.visits).toBe(64 * 50);
  expect(smooth.later.visits).toBe(64 * 50 - 1);
  expect(smooth.trace).toHaveLength(4);
  expect(doc.volume.fullTraceBytes).toBeGreaterThan(doc.volume.summaryBytes);
});

test.each([
  [
    'unknown field',
    { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, repetition: 3 },
    /field 'repetition': unknown field/,
  ],
  [
    'missing parameter',
    { module: 'k.wasm', args: ['{n}', '{m}'], parameters: { n: [1] } },
    /field 'args\[1\]': placeholder \{m\} names no parameter/,
  ],
  [
    'parameter without placeholder',
    { module: 'k.wasm', args: ['{n}', '3'], parameters: { n: [1], m: [2] } },
    /field 'parameters\.m': no placeholder \{m\}/,
  ],
  [
    'a value that is not a number',
    { module: 'k.wasm', args: ['{n}'], parameters: { n: [1, 'ten'] } },
    /field 'parameters\.n\[1\]': must be a number/,
  ],
  [
    'unknown mode',
    { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, mode: 'most' },
    /field 'mode': unknown mode "most" \(none, full/,
  ],
  ['not an object', [1, 2], /bad\.json: an experiment spec is a JSON object$/m],
  ['no module', { args: ['{n}'], parameters: { n: [1] } }, /field 'module': required: the path of the \.wasm module/],
  [
    'a bad argument',
    { module: 'k.wasm', args: ['{n}', true], parameters: { n: [1] } },
    /field 'args\[1\]': must be a number, a string or a "\{name\}" placeholder, got true/,
  ],
  [
    'an unknown metric',
    { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, metrics: ['time', 'cycles'] },
    /field 'metrics\[1\]': unknown metric "cycles" \(time, instructions, visits, bytes, calls, commtime\)/,
  ],
  [
    'a fractional repetition count',
    { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, repetitions: 1.5 },
    /field 'repetitions': must be a whole number ≥ 1/,
  ],
  [
    'a bad taint marking',
    { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, taint: { params: { n: 3 } } },
    /field 'taint\.params\.n': must be "argK" \(K from 0\) or "global:EXPORT", got 3/,
  ],
  [
    'a missing folder',
    { module: 'k.wasm', argv: ['{n}'], parameters: { n: [1] }, dir: ['no-such-folder:data'] },
    /field 'dir\[0\]': .*no-such-folder is not a folder/,
  ],
  [
    'a missing stdin file',
    { module: 'k.wasm', argv: ['{n}'], parameters: { n: [1] }, stdin: 'no-such-input.txt' },
    /field 'stdin': .*no-such-input\.txt: no such file/,
  ],
  [
    'an environment value that is not a string',
    { module: 'k.wasm', argv: ['{n}'], parameters: { n: [1] }, env: { LANG: 1 } },
    /field 'env\.LANG': must be a string, got 1/,
  ],
])('a bad spec (%s) is one line naming the spec file and the field', async (_what, spec, message) => {
  const file = writeSpec('bad.json', spec);
  const out = join(dir, 'bad-out');
  const { code, stderr } = await cli(['experiment', file, '--out', out]);
  expect(code).toBe(1);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).toContain(file);
  expect(stderr).toMatch(message);
  expect(existsSync(out)).toBe(false);
});

test("a WASI command gets the spec's folders (relative to the spec), environment and standard input in every run", async () => {
  const data = relative(dir, resolve('native/data'));
  const base = {
    module: resolve('native/wasm/textstat.wasm'),
    argv: ['{n}', 'data/poem.txt'],
    parameters: { n: [1, 2] },
    repetitions: 1,
    metrics: ['instructions'],
    mode: 'none',
    dir: [`${data}:data`],
    env: { TEXTSTAT: 'on' },
  };
  const withInput = await cli([
    'experiment',
    writeSpec('textstat.json', { ...base, stdin: `${data}/input.txt` }),
    '--out',
    join(dir, 'textstat'),
    '--jobs',
    '1',
  ]);
  expect(withInput.stderr).toBe('');
  expect(withInput.code).toBe(0);
  const withoutInput = await cli([
    'experiment',
    writeSpec('textstat-no-stdin.json', base),
    '--out',
    join(dir, 'textstat-no-stdin'),
    '--jobs',
    '1',
  ]);
  expect(withoutInput.code).toBe(0);
  // Instructions of the whole run per point: the sum over its call paths.
  const root = (file: string) =>
    [1, 2].map((n) => [
      n,
      readLines(file)
        .filter((l) => l.params.n === n)
        .reduce((sum, l) => sum + l.value, 0),
    ]);
  const read = root(join(dir, 'textstat', 'measurements.jsonl'));
  const empty = root(join(dir, 'textstat-no-stdin', 'measurements.jsonl'));
  expect(read.every(([, count]) => count! > 0)).toBe(true);
  // The poem is read through the folder in both; the second has no standard input to count.
  for (let i = 0; i < read.length; i++) expect(read[i]![1]!).toBeGreaterThan(empty[i]![1]!);
  // Without the folder the program cannot open its file: the spec's dir is what lets it run.
  const { dir: _dir, ...noFolder } = base;
  const failed = await cli([
    'experiment',
    writeSpec('textstat-no-dir.json', noFolder),
    '--out',
    join(dir, 'textstat-no-dir'),
    '--jobs',
    '1',
  ]);
  expect(failed.code).not.toBe(0);
  expect(failed.stderr).toMatch(/cannot open 'data\/poem\.txt'/);
});

test('another spec pointed at a folder holding results is refused, naming the difference; more values resume', async () => {
  const out = join(dir, 'kept');
  const first = {
    module: kernel,
    args: ['{n}', '5'],
    parameters: { n: [50] },
    repetitions: 1,
    metrics: ['instructions'],
    mode: 'none',
  };
  expect((await cli(['experiment', writeSpec('kept.json', first), '--out', out])).code).toBe(0);
  const kept = readFileSync(join(out, 'measurements.jsonl'), 'utf8');
  const other = await cli(['experiment', writeSpec('other.json', { ...first, repetitions: 3 }), '--out', out]);
  expect(other.code).toBe(1);
  expect(other.stdout).toBe('');
  expect(other.stderr.trim().split('\n')).toEqual([
    `taintlens: ${out}: holds the results of another spec (repetitions: 1 there, 3 here); give another --out, or remove the folder`,
  ]);
  const timeout = await cli(['experiment', writeSpec('timeout.json', { ...first, timeout: 9 }), '--out', out]);
  expect(timeout.stderr).toMatch(/another spec \(timeout: 60 there, 9 here\)/);
  const fewer = await cli(['experiment', writeSpec('fewer.json', { ...first, parameters: { n: [60] } }), '--out', out]);
  expect(fewer.stderr).toMatch(
    /another spec \(parameters\.n: \[50\] there, \[60\] here \(values measured there are missing\)\)/,
  );
  expect(readFileSync(join(out, 'measurements.jsonl'), 'utf8')).toBe(kept);
  expect(JSON.parse(readFileSync(join(out, 'spec.json'), 'utf8'))).toEqual(first);
  // The same spec with another value grows the grid: the point measured before is kept.
  const grown = await cli([
    'experiment',
    writeSpec('grown.json', { ...first, parameters: { n: [50, 60] } }),
    '--out',
    out,
    '--json',
  ]);
  expect(grown.code).toBe(0);
  expect(JSON.parse(grown.stdout)).toMatchObject({ measured: 1, resumed: 1 });
});

test('Ctrl-C (SIGINT) stops a campaign with one line saying what was kept and how to resume, exit 130', async () => {
  const n = [100, 150, 200, 250, 300, 350];
  const spec = writeSpec('interrupt.json', {
    module: kernel,
    args: ['{n}', '20'],
    parameters: { n },
    repetitions: 1,
    metrics: ['time', 'instructions'],
    mode: 'full',
  });
  const out = join(dir, 'interrupt');
  const measurements = join(out, 'measurements.jsonl');
  const child = spawn(process.execPath, cliProcessArgs(['experiment', spec, '--out', out, '--jobs', '1']), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const pointsIn = () => (existsSync(measurements) ? new Set(readLines(measurements).map((l) => l.params.n)).size : 0);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  for (let waited = 0; pointsIn() < 1 && waited < 90_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGINT');
  expect(await exited).toBe(130);
  const kept = pointsIn();
  expect(kept).toBeGreaterThanOrEqual(1);
  expect(kept).toBeLessThan(n.length);
  expect(stderr.trim().split('\n')).toEqual([
    `taintlens: interrupted: ${kept} point(s) kept in ${measurements}; run the same command again to measure the rest`,
  ]);
  const { code, stdout } = await cli(['experiment', spec, '--out', out, '--json']);
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ resumed: kept, measured: n.length - kept });
});

test('a campaign killed with SIGKILL halfway resumes with every point exactly once', async () => {
  const n = [100, 150, 200, 250, 300, 350, 400, 450, 500, 550];
  const spec = writeSpec('kill.json', {
    module: kernel,
    args: ['{n}', '20'],
    parameters: { n },
    repetitions: 2,
    metrics: ['time', 'instructions'],
    mode: 'full',
  });
  const out = join(dir, 'kill');
  const measurements = join(out, 'measurements.jsonl');
  const child = spawn(process.execPath, cliProcessArgs(['experiment', spec, '--out', out, '--jobs', '1']), {
    stdio: 'ignore',
  });
  const pointsIn = () => (existsSync(measurements) ? new Set(readLines(measurements).map((l) => l.params.n)).size : 0);
  const exited = new Promise((done) => child.once('exit', done));
  for (let waited = 0; pointsIn() < 2 && waited < 90_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGKILL');
  await exited;
  const before = pointsIn();
  expect(before).toBeGreaterThanOrEqual(2);
  expect(before).toBeLessThan(n.length);
  const { code, stdout } = await cli(['experiment', spec, '--out', out, '--json']);
  expect(code).toBe(0);
  const doc = JSON.parse(stdout);
  expect(doc.measured + doc.resumed).toBe(n.length);
  expect(doc.resumed).toBe(before);
  const lines = readLines(measurements);
  const perPoint = (metric: string, callpath: string) =>
    n.map((v) => lines.filter((l) => l.params.n === v && l.metric === metric && l.callpath === callpath).length);
  expect(perPoint('time', '<root>')).toEqual(n.map(() => 2));
  expect(perPoint('instructions', 'run->sweep->smooth')).toEqual(n.map(() => 1));
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  expect(
    summary.points.map((p: { params: { n: number } }) => p.params.n).sort((a: number, b: number) => a - b),
  ).toEqual(n);
}, 240_000);
