// Truncated counts are never stored: a calling-context tree that fills during a counting run fails
// the point with the fix (the --context-tree size to use), and the text report of `loops` says it in
// one line. The sampler's host empties a full sample buffer during the run instead of dropping samples. --dir reaches the
// runs of measure (a program that reads its input from a file), and --context-tree is an option of
// measure and analyze.
import { afterAll, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCampaign } from '../../src/experiment/campaign.js';
import { profileLoops } from '../../src/profile/profile-run.js';
import { treeFullWarning } from '../../src/profile/tree-full.js';
import { runSampled } from '../../src/blame/sample-run.js';
import { compareProfiles } from '../../src/blame/sampled-profile.js';
import { sampleLossWarnings } from '../../src/blame/report.js';
import { blameModule } from '../../src/blame/blame.js';
import { cli } from '../helpers/cli.js';

const KERNEL = 'native/wasm/taint_semantics.wasm';
const scratch = mkdtempSync(join(tmpdir(), 'taintlens-truncation-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('a counting run whose tree filled stores nothing and names the --context-tree to use', async () => {
  const bytes = readFileSync(KERNEL);
  const output = join(scratch, 'tiny-tree.jsonl');
  const campaign = runCampaign({
    file: KERNEL,
    bytes,
    invoke: 'contexts',
    baseArgs: ['3', '4'],
    baseArgv: [],
    repeat: 1,
    parameters: [{ name: 'n', target: { kind: 'arg', index: 0 }, values: [3] }],
    metrics: ['instructions'],
    timeoutMs: 60_000,
    output,
    contextBytes: 512,
  });
  await expect(campaign).rejects.toThrow(
    /calling-context tree filled \([\d,]+ function entries not counted\), so its counts are incomplete and are not stored; run again with --context-tree 2 \(it had 1 MiB\)/,
  );
  expect(existsSync(output) ? readFileSync(output, 'utf8').trim() : '').toBe('');
});

test('the loops warning carries the fix', async () => {
  const small = await profileLoops(
    KERNEL,
    readFileSync(KERNEL),
    { invoke: 'contexts', args: ['3', '4'], argv: [], repeat: 1, timeoutMs: 60_000 },
    { contextBytes: 512 },
  );
  expect(small.contextsLost).toBeGreaterThan(0);
  expect(small.contextTreeBytes).toBe(512);
  expect(treeFullWarning(small.contextsLost!, small.contextTreeBytes)).toMatch(
    /; run again with --context-tree 2 \(it had 1 MiB\)$/,
  );
});

test('a sample buffer that fills is emptied during the run: no sample is dropped, none differs', async () => {
  const bytes = readFileSync(KERNEL);
  const run = { invoke: 'contexts', args: ['3', '4'], argv: [], repeat: 1, timeoutMs: 60_000, json: true };
  const tiny = await runSampled(KERNEL, bytes, run, { period: 7, maxSamples: 4 });
  const roomy = await runSampled(KERNEL, bytes, run, { period: 7 });
  expect(tiny.dropped).toBe(0);
  expect(roomy.dropped).toBe(0);
  expect(tiny.samples.length).toBeGreaterThan(4 * 10);
  // A record's address slots past its region's recorded stores are never written (nor read).
  const plain = (r: typeof tiny) =>
    r.samples.map((s) => ({
      ...s,
      path: s.path.map((f) => [f.function, f.call]),
      addresses: s.addresses.slice(0, r.layout.regions[s.region]!.recorded.length),
    }));
  expect(plain(tiny)).toEqual(plain(roomy));
});

test('sample and blame say when their tree filled: the call paths of their samples are not whole', async () => {
  const bytes = readFileSync(KERNEL);
  const run = { invoke: 'contexts', args: ['3', '4'], argv: [], repeat: 1, timeoutMs: 60_000, json: true };
  const tiny = { contextBytes: 256 };
  const sampled = await runSampled(KERNEL, bytes, run, { period: 7, instrument: tiny });
  expect(sampled.contextsLost).toBeGreaterThan(0);
  const exact = await profileLoops(KERNEL, bytes, run, { contextBytes: 512 });
  const profile = compareProfiles(KERNEL, sampled, exact);
  expect(profile.contextsLost).toBe(sampled.contextsLost + exact.contextsLost!);
  expect(sampleLossWarnings(profile)).toEqual([treeFullWarning(profile.contextsLost!, 256)]);
  const blame = await blameModule(KERNEL, { ...run, bytes, period: 7, instrument: tiny });
  expect(blame.contextsLost).toBe(sampled.contextsLost);
  const whole = await blameModule(KERNEL, { ...run, bytes, period: 7 });
  expect(whole.contextsLost).toBeUndefined();
  expect(sampleLossWarnings(whole)).toEqual([]);
});

test('measure passes --dir to its runs (textstat reads its input from a file)', async () => {
  const output = join(scratch, 'textstat.jsonl');
  const argv = ['--', '3', 'data/poem.txt'];
  const without = await cli([
    'measure',
    'native/wasm/textstat.wasm',
    '--vary',
    'rounds=argv1:3',
    '--metrics',
    'instructions',
    '-o',
    join(scratch, 'none.jsonl'),
    ...argv,
  ]);
  expect(without.code).not.toBe(0);
  expect(without.stderr).toContain("cannot open 'data/poem.txt'");
  const withDir = await cli([
    'measure',
    'native/wasm/textstat.wasm',
    '--dir',
    'native/data:data',
    '--vary',
    'rounds=argv1:3',
    '--metrics',
    'instructions',
    '-o',
    output,
    ...argv,
  ]);
  expect(withDir.stderr).toBe('');
  expect(withDir.code).toBe(0);
  const lines = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { params: { rounds: number } });
  expect(new Set(lines.map((l) => l.params.rounds))).toEqual(new Set([3]));
}, 60_000);

test.each(['measure', 'analyze'])('%s takes --context-tree', async (command) => {
  const args =
    command === 'measure' ? ['--vary', 'n=arg0:3', '-o', join(scratch, 'x.jsonl')] : ['--config', 'no-such.json'];
  const { code, stderr } = await cli([command, KERNEL, '--context-tree', '0', ...args]);
  expect(stderr).not.toContain('unknown option');
  if (command === 'measure')
    expect({ code, stderr }).toEqual({
      code: 2,
      stderr: "taintlens: --context-tree must be a whole number of MiB from 1 to 1024, got '0'\n",
    });
});
