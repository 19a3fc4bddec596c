#!/usr/bin/env node
// `npm start`: the whole analysis of the bundled mini-app in one command, as a user runs it:
//   taintlens analyze build/kernels/miniapp.wasm --config examples/miniapp.analysis.json --out build/demo
// (taint run and parameter coverage, a taint-guided experiment with selective instrumentation,
// models with the taint prior ranked at size=64, cost=8, blame, overhead), then prints the ranked
// table. The report is build/demo/report.html; an interrupted run resumes in build/demo.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = [
  'analyze',
  'build/kernels/miniapp.wasm',
  '--config',
  'examples/miniapp.analysis.json',
  '--out',
  join('build', 'demo'),
];
console.log(`$ taintlens ${argv.join(' ')}\n`);
const result = spawnSync(process.execPath, [join(root, 'bin', 'taintlens.js'), ...argv], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
