// The SLURM forms of `taintlens experiment` without a cluster: bad usage (exit 2), no sbatch on
// PATH, a folder with no SLURM campaign, a spec error naming the file and the field. The cluster
// itself is in slurm.test.ts.
import { afterAll, expect, test } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-slurm-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const spec = join(dir, 'hot.json');
writeFileSync(
  spec,
  JSON.stringify({
    module: resolve('native/wasm/hot_helper.wasm'),
    args: ['{n}', '5'],
    parameters: { n: [10, 20] },
    repetitions: 1,
    metrics: ['instructions'],
    mode: 'none',
  }),
);

test.each([
  ['--status with a spec', ['experiment', spec, '--status', dir], /--status takes no spec/],
  ['--status with --collect', ['experiment', '--status', dir, '--collect', dir], /give one of --status, --collect/],
  ['--collect with --jobs', ['experiment', '--collect', dir, '--jobs', '2'], /--collect goes alone, without --jobs/],
  [
    '--chunk without --slurm',
    ['experiment', spec, '--out', join(dir, 'x'), '--chunk', '2'],
    /--chunk goes with --slurm/,
  ],
  [
    'a bad --chunk',
    ['experiment', spec, '--out', join(dir, 'x'), '--slurm', '--chunk', '0'],
    /--chunk must be a whole number ≥ 1/,
  ],
  ['no spec and no --status', ['experiment', '--out', join(dir, 'x')], /missing required argument 'spec'/],
  ['a spec without --out', ['experiment', spec, '--slurm'], /required option '--out <dir>'/],
])('bad usage (%s) exits 2', async (_what, args, message) => {
  const { code, stderr } = await cli(args);
  expect(code).toBe(2);
  expect(stderr).toMatch(message);
});

test('--slurm without sbatch on PATH is one line, and no round is left behind', async () => {
  const out = join(dir, 'no-sbatch');
  const path = process.env.PATH;
  process.env.PATH = join(dir, 'empty-bin');
  try {
    const { code, stderr } = await cli(['experiment', spec, '--slurm', '--out', out]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/sbatch: not found on PATH/);
  } finally {
    process.env.PATH = path;
  }
  expect(existsSync(join(out, 'slurm', 'round-1.json'))).toBe(false);
});

test('--status and --collect on a folder with no SLURM campaign say so in one line', async () => {
  for (const form of ['--status', '--collect']) {
    const { code, stderr } = await cli(['experiment', form, dir]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/no SLURM campaign here/);
  }
});

test('a spec error under --slurm names the spec file and the field', async () => {
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ module: 'k.wasm', args: ['{n}'], parameters: { n: [1, 'two'] } }));
  const { code, stderr } = await cli(['experiment', bad, '--slurm', '--out', join(dir, 'bad-out')]);
  expect(code).toBe(1);
  expect(stderr).toContain(bad);
  expect(stderr).toMatch(/field 'parameters\.n\[1\]': must be a number/);
  expect(existsSync(join(dir, 'bad-out'))).toBe(false);
});
