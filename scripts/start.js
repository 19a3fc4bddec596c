#!/usr/bin/env node
// `npm start`: the whole pipeline on the bundled mini-app, each step a plain `taintlens` command
// that a user can run alike: its loop profile, which parameters drive which loops (taint), an
// experiment over a size × cost grid, and performance models with the taint report as the prior.
// Artifacts go to build/demo/ (an interrupted experiment resumes there).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join('build', 'demo');
mkdirSync(join(root, out), { recursive: true });
const kernel = 'build/kernels/miniapp.wasm';
const args = '8,3,4,2,2'; // size, iters, regions, balance, cost

const steps = [
  ['loop profile: every loop per calling context, loop- vs function-level', ['loops', kernel, '--args', args, '--compare']],
  ['taint: which parameters drive which loops and functions', ['taint', kernel, '--args', args, '-o', join(out, 'taint.json')]],
  [
    'experiment: size × cost grid, 5 repetitions (time, and exact instructions per call path)',
    ['measure', kernel, '--args', args, '--vary', 'size=arg0:4,6,8,10,12', '--vary', 'cost=arg4:1,2,3,4,6', '--repeat', '5', '-o', join(out, 'measurements.jsonl')],
  ],
  [
    'models: PMNF per call path with the taint prior, extrapolated to size=64, cost=8',
    ['model', join(out, 'measurements.jsonl'), '--taint', join(out, 'taint.json'), '--metric', 'instructions', '--target', 'size=64,cost=8'],
  ],
];

steps.forEach(([title, argv], i) => {
  console.log(`\n== ${i + 1}/${steps.length} ${title}\n$ taintlens ${argv.join(' ')}\n`);
  const result = spawnSync(process.execPath, [join(root, 'bin', 'taintlens.js'), ...argv], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
});
