// Runs the WebAssembly wasi-testsuite's prebuilt preview1 tests (tests/*/testsuite/wasm32-wasip1/*.wasm
// with their .json specs: args, env, a root directory preopened as '/', the expected exit code and
// output) under Taintlens's WASI host and under node:wasi, and prints both results side by side.
//
//   npx tsx bench/wasi-testsuite.ts PATH [--filter TEXT] [--json]
//
// PATH: a checkout of the suite's prod/testsuite-base branch (it holds the built tests), or the
// git directory `fetch github:WebAssembly/wasi-testsuite` leaves (the branch is unpacked from it).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execute } from '../src/runtime/execute.js';
import type { RunResponse } from '../src/runtime/protocol.js';

/** A test's spec, legacy or operation-based, reduced to what a command-line runner needs. */
export interface TestSpec {
  args: string[];
  env: Record<string, string>;
  /** Directory (relative to the test) preopened as the guest's '/'. */
  root: string | null;
  exitCode: number;
  /** Expected output; null when the spec names none (then it is not compared). */
  stdout: string | null;
  stderr: string | null;
}

export interface TestOutcome {
  exitCode: number | null;
  stdout: string;
  /** Why the run did not end with an exit code (a trap, a link error, a call the host lacks). */
  failure?: string;
}

interface Operation {
  type: string;
  args?: string[];
  env?: Record<string, string>;
  root?: string | null;
  dirs?: string[];
  exit_code?: number;
  id?: string;
  payload?: string;
}

/** Reads `NAME.json` beside `NAME.wasm` (defaults when there is none), in either spec format. */
export function readSpec(wasm: string): TestSpec {
  const file = wasm.replace(/\.wasm$/, '.json');
  type Legacy = Operation & { stdout?: string; stderr?: string; operations?: Operation[] };
  const raw: Legacy = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Legacy) : { type: 'run' };
  const operations: Operation[] = raw.operations ?? [
    { ...raw, type: 'run' },
    { type: 'wait', ...(raw.exit_code !== undefined ? { exit_code: raw.exit_code } : {}) },
    ...(raw.stdout !== undefined ? [{ type: 'read', id: 'stdout', payload: raw.stdout }] : []),
    ...(raw.stderr !== undefined ? [{ type: 'read', id: 'stderr', payload: raw.stderr }] : []),
  ];
  const spec: TestSpec = { args: [], env: {}, root: null, exitCode: 0, stdout: null, stderr: null };
  for (const op of operations) {
    if (op.type === 'run') {
      spec.args = op.args ?? [];
      spec.env = op.env ?? {};
      spec.root = op.root ?? op.dirs?.[0] ?? null;
    } else if (op.type === 'wait') {
      spec.exitCode = op.exit_code ?? 0;
    } else if (op.type === 'read') {
      if ((op.id ?? 'stdout') === 'stdout') spec.stdout = op.payload ?? '';
      else spec.stderr = op.payload ?? '';
    }
  }
  return spec;
}

/** A fresh copy of the test's root directory (tests write into it), without old `.cleanup` files. */
function freshRoot(wasm: string, spec: TestSpec): string | null {
  if (spec.root === null) return null;
  const copy = mkdtempSync(join(tmpdir(), 'taintlens-wasi-suite-'));
  cpSync(join(dirname(wasm), spec.root), copy, { recursive: true, filter: (source) => !source.endsWith('.cleanup') });
  return copy;
}

/** Runs one test under Taintlens's WASI host (in this thread, as the run worker would). */
export async function runUnderTaintlens(wasm: string, spec: TestSpec): Promise<TestOutcome> {
  const root = freshRoot(wasm, spec);
  try {
    const response: RunResponse = await execute({
      file: basename(wasm),
      module: new WebAssembly.Module(readFileSync(wasm)),
      invoke: null,
      args: [],
      argv: spec.args,
      repeat: 1,
      regions: [],
      plugins: [],
      globals: [],
      programBase: 0,
      wasi: {
        preopens: root === null ? [] : [{ host: root, guest: '/', writable: true }],
        env: spec.env,
        clock: 'real',
      },
    });
    if (response.ok) return { exitCode: 0, stdout: response.repetitions[0]?.stdout ?? '' };
    if (response.failure === 'exit')
      return { exitCode: response.exitCode ?? null, stdout: response.output?.stdout ?? '' };
    return { exitCode: null, stdout: response.output?.stdout ?? '', failure: response.message };
  } finally {
    if (root !== null) rmSync(root, { recursive: true, force: true });
  }
}

const NODE_WASI_RUNNER = `
const { WASI } = require('node:wasi');
const { readFileSync } = require('node:fs');
const [file, spec] = [process.argv[1], JSON.parse(process.argv[2])];
const wasi = new WASI({ version: 'preview1', args: [file, ...spec.args], env: spec.env, preopens: spec.root ? { '/': spec.root } : {}, returnOnExit: true });
const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(file)), { wasi_snapshot_preview1: wasi.wasiImport });
process.exitCode = wasi.start(instance);
`;

/** Runs one test under node:wasi, in a child process of its own. */
export function runUnderNodeWasi(wasm: string, spec: TestSpec): TestOutcome {
  const root = freshRoot(wasm, spec);
  try {
    const child = spawnSync(
      process.execPath,
      ['--no-warnings', '-e', NODE_WASI_RUNNER, wasm, JSON.stringify({ ...spec, root })],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const failure =
      child.status === null
        ? `killed (${child.signal})`
        : child.stderr.includes('Error')
          ? child.stderr
              .trim()
              .split('\n')
              .find((l) => /Error/.test(l))
          : undefined;
    return { exitCode: child.status, stdout: child.stdout, ...(failure ? { failure } : {}) };
  } finally {
    if (root !== null) rmSync(root, { recursive: true, force: true });
  }
}

export function passes(outcome: TestOutcome, spec: TestSpec): boolean {
  return (
    outcome.failure === undefined &&
    outcome.exitCode === spec.exitCode &&
    (spec.stdout === null || outcome.stdout === spec.stdout)
  );
}

/** Every `*.wasm` test under tests/*\/testsuite/wasm32-wasip1 of a suite checkout. */
export function listTests(suite: string): string[] {
  const tests: string[] = [];
  const top = join(suite, 'tests');
  for (const language of readdirSync(top)) {
    const folder = join(top, language, 'testsuite', 'wasm32-wasip1');
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) if (name.endsWith('.wasm')) tests.push(join(folder, name));
  }
  return tests;
}

/** A checkout of the built tests: PATH itself, or prod/testsuite-base unpacked from a git directory. */
function checkout(path: string): string {
  if (existsSync(join(path, 'tests')) && statSync(join(path, 'tests')).isDirectory() && listTests(path).length > 0)
    return path;
  const target = mkdtempSync(join(tmpdir(), 'taintlens-wasi-testsuite-'));
  const archive = spawnSync('git', ['--git-dir', path, 'archive', 'prod/testsuite-base', 'tests'], {
    maxBuffer: 1 << 30,
  });
  if (archive.status !== 0)
    throw new Error(
      `${path}: neither a checkout with built tests nor a wasi-testsuite git directory (${archive.stderr.toString().trim()})`,
    );
  spawnSync('tar', ['-x', '-C', target], { input: archive.stdout });
  return target;
}

function describe(outcome: TestOutcome, spec: TestSpec): string {
  if (passes(outcome, spec)) return 'pass';
  if (outcome.failure) return `FAIL: ${outcome.failure.slice(0, 90)}`;
  if (outcome.exitCode !== spec.exitCode) return `FAIL: exit ${outcome.exitCode}, expected ${spec.exitCode}`;
  return `FAIL: stdout ${JSON.stringify(outcome.stdout.slice(0, 40))}, expected ${JSON.stringify((spec.stdout ?? '').slice(0, 40))}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const path = argv.find((a) => !a.startsWith('--'));
  if (!path) {
    console.error('usage: tsx bench/wasi-testsuite.ts PATH [--filter TEXT] [--json]');
    process.exit(2);
  }
  const filterAt = argv.indexOf('--filter');
  const filter = filterAt >= 0 ? (argv[filterAt + 1] ?? '') : '';
  const suite = checkout(path);
  const rows: Array<{ test: string; taintlens: string; node: string }> = [];
  for (const wasm of listTests(suite).filter((t) => t.includes(filter))) {
    const spec = readSpec(wasm);
    const test = `${wasm.split('/tests/')[1]!.split('/')[0]}/${basename(wasm, '.wasm')}`;
    const row = {
      test,
      taintlens: describe(await runUnderTaintlens(wasm, spec), spec),
      node: describe(runUnderNodeWasi(wasm, spec), spec),
    };
    rows.push(row);
    if (!argv.includes('--json')) console.log(`${row.test.padEnd(48)} ${row.taintlens.padEnd(40)} ${row.node}`);
  }
  const count = (key: 'taintlens' | 'node') => rows.filter((r) => r[key] === 'pass').length;
  const summary = {
    schema: 'taintlens/wasi-testsuite@1',
    tests: rows.length,
    taintlensPasses: count('taintlens'),
    nodeWasiPasses: count('node'),
    rows,
  };
  if (argv.includes('--json')) console.log(JSON.stringify(summary, null, 2));
  else
    console.log(
      `\n${rows.length} tests: Taintlens's host passes ${summary.taintlensPasses}, node:wasi passes ${summary.nodeWasiPasses}`,
    );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
