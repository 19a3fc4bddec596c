// `taintlens experiment SPEC --slurm`, `--status`, `--collect` against a real single-node SLURM
// cluster started for this file (test/helpers/slurm-cluster.ts; skipped, with the reason, where
// SLURM and munge are not installed or we are not root). The array tasks run the built CLI
// (bin/taintlens.js on dist/, which `npm ci` builds). A 2×3×5 campaign of the bundled mini-app,
// five points per task, has one task cancelled midway; a second submit measures only what it
// left, and collect has every point exactly once.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cli } from '../helpers/cli.js';
import { startLocalCluster, type LocalCluster } from '../helpers/slurm-cluster.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-slurm-campaign-'));
const sizes = [4, 6, 8, 10, 120];
const spec = join(dir, 'miniapp.json');
// Each task's last point (size 120) takes seconds: a task seen with one point is cancelled midway.
writeFileSync(
  spec,
  JSON.stringify({
    module: resolve('native/wasm/miniapp.wasm'),
    invoke: 'run',
    args: ['{size}', '{iters}', '{regions}', '2', '3'],
    parameters: { regions: [1, 2], iters: [1, 2, 3], size: sizes },
    repetitions: 1,
    metrics: ['time', 'instructions'],
    mode: 'none',
  }),
);

let cluster: LocalCluster | null = null;
let skipReason = '';

beforeAll(async () => {
  const started = await startLocalCluster();
  if ('skip' in started) {
    skipReason = started.skip;
    process.stderr.write(`slurm.test.ts: skipped: ${skipReason}\n`);
    return;
  }
  cluster = started.cluster;
  process.env.SLURM_CONF = cluster.conf;
}, 90_000);

afterAll(() => {
  cluster?.stop();
  delete process.env.SLURM_CONF;
  rmSync(dir, { recursive: true, force: true });
});

interface Status {
  counts: Record<string, number>;
  tasks: Array<{
    round: number;
    task: number;
    id: string;
    state: string;
    detail: string;
    done: number;
    points: number;
    resubmittedIn: number | null;
  }>;
  points: Array<{ params: Record<string, number>; state: string }>;
}

async function status(out: string): Promise<Status> {
  const result = await cli(['experiment', '--status', out, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Status;
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, seconds = 60): Promise<T> {
  for (const end = Date.now() + seconds * 1000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const value = await probe();
    if (value !== null) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

const pointsIn = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('}'))
        .map((l) => JSON.parse(l) as { params: Record<string, number>; callpath: string; metric: string })
    : [];
const keyOf = (params: Record<string, number>) => `${params.regions}/${params.iters}/${params.size}`;
const rootTimes = (file: string) =>
  pointsIn(file)
    .filter((l) => l.metric === 'time' && l.callpath === '<root>')
    .map((l) => keyOf(l.params));

test('a 2×3×5 campaign with a task cancelled midway finishes on a second submit with every point exactly once', async (ctx) => {
  if (!cluster) return ctx.skip(skipReason);
  const out = join(dir, 'campaign');
  const submitted = await cli(['experiment', spec, '--slurm', '--chunk', '5', '--out', out, '--json']);
  expect(submitted.stderr).toBe('');
  expect(submitted.code).toBe(0);
  const first = JSON.parse(submitted.stdout) as {
    schema: string;
    round: number;
    jobId: string;
    tasks: number;
    submitted: number;
  };
  expect(first).toMatchObject({ schema: 'taintlens/slurm-submit@1', round: 1, tasks: 6, submitted: 30 });

  // Cancel task 0 once it has measured a point (of its five).
  const task0 = join(out, 'slurm', 'round-1', 'task-0.jsonl');
  await until('task 0 to measure a point', () => (rootTimes(task0).length > 0 ? true : null));
  expect(spawnSync('scancel', [`${first.jobId}_0`]).status).toBe(0);
  const ended = (s: Status) => s.tasks.every((t) => t.state !== 'running' && t.state !== 'pending');
  const afterCancel = await until(
    'the other tasks to end',
    async () => {
      const s = await status(out);
      return ended(s) ? s : null;
    },
    120,
  );
  const cancelled = afterCancel.tasks.find((t) => t.task === 0)!;
  expect(cancelled.state).toBe('cancelled');
  expect(cancelled.done).toBeGreaterThanOrEqual(1);
  expect(cancelled.done).toBeLessThan(5);
  expect(afterCancel.tasks.filter((t) => t.task !== 0).every((t) => t.state === 'done')).toBe(true);
  expect(afterCancel.counts).toMatchObject({ done: 25 + cancelled.done, cancelled: 5 - cancelled.done });
  const human = await cli(['experiment', '--status', out]);
  expect(human.stdout).toMatch(new RegExp(`${first.jobId}_0 +1 +cancelled +${cancelled.done}/5`));

  // The second submit measures only the points the cancelled task left.
  const again = await cli(['experiment', spec, '--slurm', '--chunk', '5', '--out', out, '--json']);
  expect(again.code).toBe(0);
  const second = JSON.parse(again.stdout) as {
    round: number;
    tasks: number;
    submitted: number;
    resubmitted: number;
    done: number;
  };
  expect(second).toMatchObject({
    round: 2,
    tasks: 1,
    submitted: 5 - cancelled.done,
    resubmitted: 5 - cancelled.done,
    done: 25 + cancelled.done,
  });
  const finished = await until(
    'round 2 to finish',
    async () => {
      const s = await status(out);
      return ended(s) ? s : null;
    },
    120,
  );
  expect(finished.counts.done).toBe(30);
  expect(finished.tasks.find((t) => t.round === 1 && t.task === 0)!.resubmittedIn).toBe(2);

  // Measuring here what the tasks measured but nobody collected yet is refused.
  const local = await cli(['experiment', spec, '--out', out]);
  expect(local.code).toBe(1);
  expect(local.stderr).toMatch(/its SLURM tasks measured 30 point\(s\) not collected yet/);

  const collected = await cli(['experiment', '--collect', out, '--json']);
  expect(collected.code).toBe(0);
  expect(JSON.parse(collected.stdout)).toMatchObject({
    schema: 'taintlens/slurm-collect@1',
    collected: 30,
    already: 0,
    missing: 0,
    points: 30,
  });
  const measured = rootTimes(join(out, 'measurements.jsonl'));
  expect(measured).toHaveLength(30);
  expect(new Set(measured).size).toBe(30);
  // Nothing was measured twice: no point is in two task files.
  const inTasks = [...Array(6).keys()]
    .flatMap((t) => rootTimes(join(out, 'slurm', 'round-1', `task-${t}.jsonl`)))
    .concat(rootTimes(join(out, 'slurm', 'round-2', 'task-0.jsonl')));
  expect(inTasks.sort()).toEqual([...measured].sort());
  // Instruction counts are exact: the same point gives the same count in every process.
  const instructions = pointsIn(join(out, 'measurements.jsonl')).filter(
    (l) => l.metric === 'instructions' && l.callpath === 'run',
  );
  expect(instructions).toHaveLength(30);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
    schema: string;
    design: { points: number };
  };
  expect(summary).toMatchObject({ schema: 'taintlens/summary@1', design: { points: 30 } });

  // Collecting again adds nothing; submitting again submits nothing; the store is the engine's own.
  expect(JSON.parse((await cli(['experiment', '--collect', out, '--json'])).stdout)).toMatchObject({
    collected: 0,
    already: 30,
  });
  expect(JSON.parse((await cli(['experiment', spec, '--slurm', '--out', out, '--json'])).stdout)).toMatchObject({
    round: null,
    submitted: 0,
    done: 30,
  });
  expect(JSON.parse((await cli(['experiment', spec, '--out', out, '--json'])).stdout)).toMatchObject({
    measured: 0,
    resumed: 30,
  });

  // A task file of another campaign is refused, and the store is left as it was.
  const record = join(out, 'slurm', 'round-1', 'task-1.jsonl.campaign.json');
  writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), repeat: 7 }));
  const store = readFileSync(join(out, 'measurements.jsonl'), 'utf8');
  const mixed = await cli(['experiment', '--collect', out]);
  expect(mixed.code).toBe(1);
  expect(mixed.stderr.trim().split('\n')).toHaveLength(1);
  expect(mixed.stderr).toMatch(/task-1\.jsonl: holds another campaign \(--repeat: 7 there, 1 here\)/);
  expect(readFileSync(join(out, 'measurements.jsonl'), 'utf8')).toBe(store);
}, 240_000);

test('sbatch refusing the array is one line, and nothing of the round is left', async (ctx) => {
  if (!cluster) return ctx.skip(skipReason);
  const out = join(dir, 'refused');
  const { code, stderr } = await cli(['experiment', spec, '--slurm', '--partition', 'no-such-partition', '--out', out]);
  expect(code).toBe(1);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/sbatch refused the job array: .*invalid partition/i);
  expect(existsSync(join(out, 'slurm', 'round-1.json'))).toBe(false);
});

test('a task that fails at a point shows as failed with its exit code; the point it measured stays done', async (ctx) => {
  if (!cluster) return ctx.skip(skipReason);
  // The mini-app traps at size 100000 (its arrays do not fit in memory).
  const failing = join(dir, 'failing.json');
  writeFileSync(
    failing,
    JSON.stringify({
      module: resolve('native/wasm/miniapp.wasm'),
      invoke: 'run',
      args: ['{size}', '1', '1', '2', '3'],
      parameters: { size: [4, 100000] },
      repetitions: 1,
      metrics: ['instructions'],
      mode: 'none',
    }),
  );
  const out = join(dir, 'failing');
  const submitted = await cli(['experiment', failing, '--slurm', '--chunk', '2', '--out', out, '--json']);
  expect(submitted.code).toBe(0);
  const s = await until('the task to end', async () => {
    const now = await status(out);
    return now.tasks.every((t) => t.state !== 'running' && t.state !== 'pending') ? now : null;
  });
  expect(s.tasks).toHaveLength(1);
  expect(s.tasks[0]).toMatchObject({ state: 'failed', done: 1, points: 2 });
  expect(s.tasks[0]!.detail).toMatch(/^exit 1; see .*task-0\.log$/);
  expect(s.points.map((p) => [p.params.size, p.state])).toEqual([
    [4, 'done'],
    [100000, 'failed'],
  ]);
  expect(readFileSync(join(out, 'slurm', 'round-1', 'task-0.log'), 'utf8')).toMatch(
    // size=100000 outgrows the default 1 GiB memory limit: the point fails with that reason
    /at point size=100000 \(nothing stored for it\): the program grew its memory past its limit/,
  );
});
