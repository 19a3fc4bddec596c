// Every command example of the README runs as printed. The examples are read from README.md itself
// (every `npx taintlens …` and `npm run …` line of its ```sh blocks, so new ones are picked up) and
// run in order, in a scratch directory that sees the repository's bundled files (build/, native/, examples/, test/,
// library/, dist/, node_modules/, package.json) through symlinks and receives the files examples
// write. `npx taintlens` is the built CLI (bin/taintlens.js on dist/, what npx runs); `npm run`
// lines run through npm. Each must exit 0, write no stack trace, and produce what it promises:
// output on stdout, the files it names with `>`/`-o`, a JSON document with a schema for `--json`.
//
// Not run: `npm ci`, `npm start`, `npm test` (install, the demo and this very suite: npm test and CI
// run them), and the scripts that rebuild or measure the whole project (`npm run build`,
// `typecheck`, `lint`, `bench`, `bench:model`, `bench:scale`: a minute or more each, and a rebuild would
// replace dist/ under the tests running beside this one; CI runs lint and bench:scale as steps of
// their own), and `format` (it rewrites the tree).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'taintlens.js');
const SHARED = ['build', 'native', 'library', 'assembly', 'examples', 'test', 'dist', 'node_modules', 'bin', 'package.json', 'package-lock.json'];
const NOT_RUN = /^npm (ci|start|test|install)\b|^npm run (build|typecheck|lint|format|bench|asbuild|prepare)(:\w+)?\b/;

/** `npx taintlens …` and `npm run …` lines of the README's sh blocks, comments removed. */
export function readmeExamples(markdown: string): string[] {
  const examples: string[] = [];
  for (const block of markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#\s.*$/, '').trim();
      if (/^(npx taintlens|npm run)\b/.test(line)) examples.push(line);
    }
  }
  return examples;
}

const examples = readmeExamples(readFileSync(join(root, 'README.md'), 'utf8'));
const runnable = examples.filter((line) => !NOT_RUN.test(line));
let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'taintlens-readme-'));
  for (const entry of SHARED) if (existsSync(join(root, entry))) symlinkSync(join(root, entry), join(cwd, entry));
});

afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Files an example says it writes: `> FILE` and `-o FILE` / `--output FILE` and the like. */
function promisedFiles(line: string): string[] {
  // Words after ` -- ` are the WASI program's own argv (icepll's `-o 48` is a frequency); redirections count anywhere.
  const own = line.split(' -- ')[0]!;
  const files = [
    ...[...own.matchAll(/(?:^|\s)(?:-o|--output|--scorep-filter|--perf-taint-json)\s+(\S+)/g)],
    ...[...line.matchAll(/(?:^|\s)>\s+(\S+)/g)],
  ].map((m) => m[1]!);
  return files.filter((f) => !f.startsWith('-'));
}

function run(line: string) {
  const command = line.replace(/^npx taintlens\b/, `node ${JSON.stringify(bin)}`);
  return spawnSync('bash', ['-o', 'pipefail', '-c', command], {
    cwd, encoding: 'utf8', timeout: 120_000,
    env: { ...process.env, FORCE_COLOR: '0', npm_config_update_notifier: 'false' },
  });
}

describe('README examples', () => {
  test('the README has examples for every command, all with npx or npm run', () => {
    for (const command of ['run', 'loops', 'taint', 'measure', 'model', 'fuzz', 'instrument']) {
      expect(examples.some((line) => line.startsWith(`npx taintlens ${command} `)), command).toBe(true);
    }
    const bare = readFileSync(join(root, 'README.md'), 'utf8').match(/^```sh\n[\s\S]*?^```/gm)!.join('\n').split('\n')
      .filter((line) => /^taintlens\s/.test(line.trim()));
    expect(bare, 'a bare `taintlens` line only runs after npm link').toEqual([]);
  });

  test.each(runnable.map((line, i) => [i + 1, line] as const))('%i: %s', (_, line) => {
    const result = run(line);
    const context = `${line}\nexit ${result.status}\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr.slice(0, 2000)}`;
    expect(result.status, context).toBe(0);
    expect(result.stderr, context).not.toMatch(/internal error|^\s+at .+:\d+:\d+\)?$/m);
    const files = promisedFiles(line);
    for (const file of files) {
      expect(existsSync(join(cwd, file)), `${line}: ${file} not written`).toBe(true);
      expect(statSync(join(cwd, file)).size, `${line}: ${file} is empty`).toBeGreaterThan(0);
    }
    // npm run's own header ("> taintlens@0.1.0 fuzz", "> node ...") is not the example's output
    const output = result.stdout.split('\n').filter((l) => !/^> /.test(l)).join('\n').trim();
    if (!line.includes('>')) expect(output, context).not.toBe('');
    if (/\s--json\b/.test(line) && !/[|>]/.test(line)) {
      expect((JSON.parse(result.stdout) as { schema?: unknown }).schema, context).toMatch(/^taintlens\//);
    }
  }, 120_000);
});
