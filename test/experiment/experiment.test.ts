// `taintlens experiment SPEC --out DIR`: a sweep of a bundled kernel, spec validation, and a
// campaign killed with SIGKILL halfway that resumes with every point exactly once.
import { expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-experiment-');
const kernel = resolve('native/wasm/hot_helper.wasm');
const writeSpec = (name: string, spec: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(spec));
  return file;
};
const readLines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { params: Record<string, number>; callpath: string; metric: string; value: number });

test('a sweep writes exactly the expected JSON Lines; instruction counts repeat exactly and scale with the trip counts', async () => {
  const spec = writeSpec('sweep.json', {
    module: kernel, args: ['{n}', '{m}'], parameters: { n: [100, 200, 400], m: [10, 30] }, repetitions: 2,
    metrics: ['time', 'instructions', 'visits'], mode: 'selective', taint: { params: { n: 'arg0', m: 'arg1' } },
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
  const instr = (n: number, m: number, path: string) => lines.find((l) => l.params.n === n && l.params.m === m && l.callpath === path && l.metric === 'instructions')!.value;
  // sweep's count does not see m and grows exactly linearly in n (smooth folded into it).
  expect(instr(100, 10, 'run->sweep')).toBe(instr(100, 30, 'run->sweep'));
  const step = instr(200, 10, 'run->sweep') - instr(100, 10, 'run->sweep');
  expect(instr(400, 10, 'run->sweep') - instr(200, 10, 'run->sweep')).toBe(2 * step);
  expect(lines.filter((l) => l.metric === 'visits' && l.callpath === 'run->sweep').every((l) => l.value === 1)).toBe(true);
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
  const spec = writeSpec('full.json', { module: kernel, args: ['{n}', '5'], parameters: { n: [50] }, repetitions: 1, metrics: ['time'], mode: 'full', trace: 4 });
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
  ['unknown field', { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, repetition: 3 }, /field 'repetition': unknown field/],
  ['missing parameter', { module: 'k.wasm', args: ['{n}', '{m}'], parameters: { n: [1] } }, /field 'args\[1\]': placeholder \{m\} names no parameter/],
  ['parameter without placeholder', { module: 'k.wasm', args: ['{n}', '3'], parameters: { n: [1], m: [2] } }, /field 'parameters\.m': no placeholder \{m\}/],
  ['a value that is not a number', { module: 'k.wasm', args: ['{n}'], parameters: { n: [1, 'ten'] } }, /field 'parameters\.n\[1\]': must be a number/],
  ['unknown mode', { module: 'k.wasm', args: ['{n}'], parameters: { n: [1] }, mode: 'most' }, /field 'mode': unknown mode/],
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

test('a campaign killed with SIGKILL halfway resumes with every point exactly once', async () => {
  const n = [100, 150, 200, 250, 300, 350, 400, 450, 500, 550];
  const spec = writeSpec('kill.json', { module: kernel, args: ['{n}', '20'], parameters: { n }, repetitions: 2, metrics: ['time', 'instructions'], mode: 'full' });
  const out = join(dir, 'kill');
  const measurements = join(out, 'measurements.jsonl');
  const child = spawn(process.execPath, [
    '--import', 'tsx', '--input-type=module', '-e',
    "const { main } = await import('./src/cli/main.ts'); process.exitCode = await main(process.argv.slice(1));",
    'experiment', spec, '--out', out, '--jobs', '1',
  ], { stdio: 'ignore' });
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
  const perPoint = (metric: string, callpath: string) => n.map((v) => lines.filter((l) => l.params.n === v && l.metric === metric && l.callpath === callpath).length);
  expect(perPoint('time', '<root>')).toEqual(n.map(() => 2));
  expect(perPoint('instructions', 'run->sweep->smooth')).toEqual(n.map(() => 1));
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  expect(summary.points.map((p: { params: { n: number } }) => p.params.n).sort((a: number, b: number) => a - b)).toEqual(n);
}, 240_000);
