// Bad usage is exit code 2 for every command, whoever rejects it (the option parser or our own
// checks); --version and every --help work; help shows defaults as numbers; piping into a reader
// that stops early (`| head -1`) ends quietly.
import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';

const root = join(import.meta.dirname, '..', '..');
const COMMANDS = ['run', 'instrument', 'loops', 'measure', 'model', 'taint', 'analyze', 'fuzz'] as const;
const WITH_ARGUMENT = COMMANDS.filter((c) => c !== 'fuzz');
/** Options a command requires, so the parser gets as far as what a test is about. */
const REQUIRED: Partial<Record<(typeof COMMANDS)[number], string[]>> = {
  instrument: ['--mode', 'loops'],
  measure: ['-o', 'never-written.jsonl'],
  analyze: ['--config', 'examples/miniapp.quick.analysis.json'],
};

describe('bad usage exits 2', () => {
  test.each(COMMANDS)('%s: an unknown option', async (command) => {
    const result = await cli([command, 'build/kernels/matmul.wasm', ...(REQUIRED[command] ?? []), '--no-such-option']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--no-such-option'/);
  });

  test.each(WITH_ARGUMENT)('%s: the missing argument', async (command) => {
    const result = await cli([command, ...(REQUIRED[command] ?? [])]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/missing required argument/);
  });

  test.each([
    ['a bad choice', ['model', 'm.jsonl', '--aggregate', 'mode'], /Allowed choices are median, mean/],
    ['an option without its value', ['loops', 'build/kernels/matmul.wasm', '--args'], /argument missing/],
    [
      'a missing required option',
      ['instrument', 'build/kernels/matmul.wasm'],
      /required option '--mode <modes>' not specified/,
    ],
    ['a bad number', ['run', 'build/kernels/matmul.wasm', '--repeat', 'x'], /--repeat must be a positive whole number/],
    [
      'a bad memory limit',
      ['run', 'build/kernels/matmul.wasm', '--memory-limit', '0'],
      /--memory-limit must be a whole number/,
    ],
    ['a bad fuzz count', ['fuzz', '--count', 'many'], /'--count <n>' argument 'many' is invalid/],
    ['an unknown fuzz mode', ['fuzz', '--modes', 'nope'], /unknown mode\(s\) 'nope'/],
    ['an unknown command', ['profile', 'x.wasm'], /unknown command 'profile'/],
    ['excess arguments', ['model', 'a.jsonl', 'b.jsonl'], /too many arguments/],
  ] as const)('%s', async (_, args, message) => {
    const result = await cli([...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

// A WASI command runs _start, which takes no export arguments: --args was dropped unseen and the
// program ran at its default size.
test.each(['run', 'loops', 'taint', 'sample', 'blame'])(
  '%s: --args on a WASI command names the file and says to use --',
  async (command) => {
    const result = await cli([command, 'native/wasm/gemm_cmd.wasm', '--args', '64,2']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "taintlens: native/wasm/gemm_cmd.wasm: --args gives an export's arguments, but this WASI command runs _start: pass its command line after -- (e.g. -- 64 2)",
    );
  },
);

test.each(['run', 'loops', 'sample'])(
  '%s: a command line for a module that reads none names the file',
  async (command) => {
    const result = await cli([command, 'build/kernels/matmul.wasm', '--args', '8', '--', '5', '6']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "taintlens: build/kernels/matmul.wasm: the module does not read a command line (it imports no WASI args_get), so '5 6' after -- would be ignored (an export's arguments go in --args 5,6)",
    );
  },
);

describe('help and version', () => {
  test('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const result = await cli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  test.each(COMMANDS)('%s --help lists its options, defaults as numbers', async (command) => {
    const result = await cli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`Usage: taintlens ${command}`));
    expect(result.stdout).not.toMatch(/\(default: "\d+"\)/);
  });

  test('fuzz --help names every option of the campaign', async () => {
    const { stdout } = await cli(['fuzz', '--help']);
    for (const option of [
      '--count <n>',
      '--seed <s>',
      '--source',
      '--modes',
      '--combined',
      '--jobs',
      '--timeout',
      '--shrink',
      '--save',
      '--json',
      '--make-corpus',
    ]) {
      expect(stdout).toContain(option);
    }
    expect(stdout).toMatch(/--count <n>.*\(default: 100\)/);
  });

  test('run shows its numeric defaults and takes --memory-limit', async () => {
    const { stdout } = await cli(['run', '--help']);
    expect(stdout).toMatch(/--repeat <k>[\s\S]*\(default: 1\)/);
    expect(stdout).toMatch(/--timeout <seconds>.*\(default: 60\)/);
    expect(stdout).toContain('--memory-limit <MiB>');
  });
});

describe('run --memory-limit', () => {
  test('caps how far the program may grow its memory', async () => {
    // matmul's three 300×300 f64 matrices need about 2.1 MiB
    const capped = await cli(['run', 'build/kernels/matmul.wasm', '--args', '300', '--memory-limit', '1']);
    expect(capped.code).toBe(1);
    expect(capped.stderr).toMatch(/^taintlens: build\/kernels\/matmul\.wasm: trap in run/);
    const roomy = await cli(['run', 'build/kernels/matmul.wasm', '--args', '300', '--memory-limit', '4', '--json']);
    expect(roomy.code).toBe(0);
    expect(JSON.parse(roomy.stdout).result).toBeTypeOf('number');
  });
});

test('--json piped into head -1 is a whole JSON document (one line off a terminal)', () => {
  const result = spawnSync(
    'bash',
    ['-o', 'pipefail', '-c', 'node bin/taintlens.js loops build/kernels/mergesort.wasm --args 1000 --json | head -1'],
    { cwd: root, encoding: 'utf8' },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trimEnd()).not.toContain('\n');
  const document = JSON.parse(result.stdout) as { schema: string; loops: unknown[] };
  expect(document.schema).toMatch(/^taintlens\/loops@/);
  expect(document.loops.length).toBeGreaterThan(0);
});

// `true` reads nothing and is gone before the profile is written: the write always meets EPIPE
test('--json piped into a reader that stops early exits quietly', () => {
  const result = spawnSync(
    'bash',
    ['-o', 'pipefail', '-c', 'node bin/taintlens.js loops build/kernels/mergesort.wasm --args 1000 --json | true'],
    { cwd: root, encoding: 'utf8' },
  );
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
});
