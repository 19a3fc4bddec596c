// Every command example of the README runs as printed. The examples are read from README.md itself
// (every `npx taintlens …` and `npm run …` line of its ```sh blocks, so new ones are picked up) and
// run in order, in a scratch directory that sees the repository's bundled files (build/, native/, examples/, test/,
// library/, dist/, node_modules/, package.json) through symlinks and receives the files examples
// write. `npx taintlens` is the built CLI (bin/taintlens.js on dist/, what npx runs); `npm run`
// lines run through npm. Each must exit 0, write no stack trace, and produce what it promises:
// output on stdout, the files it names with `>`/`-o`, a JSON document with a schema for `--json`.
//
// Not run: `npm ci`, `npm start`, `npm test`, `npm run test:system` (install, the demo and the suites,
// this file among them: CI runs them), and the scripts that rebuild or measure the whole project (`npm run build`,
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
const SHARED = [
  'build',
  'native',
  'library',
  'assembly',
  'examples',
  'test',
  'dist',
  'node_modules',
  'bin',
  'package.json',
  'package-lock.json',
];
const NOT_RUN =
  /^npm (ci|start|test|install)\b|^npm run (build|typecheck|lint|format|bench|asbuild|prepare|test)(:\w+)?\b/;

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

/** A figure the README states for an example's output: a call path's model, exact or not, its leading term. */
export interface Figure {
  callpath: string;
  model: string;
  exact: boolean;
  leading: string | null;
}

const FIGURE = /^#\s*([\w.$<>/-]+(?:->[\w.$<>/-]+)*):\s*(.+)$/;

/**
 * The figures the README's sh blocks print beside an example, as `# CALLPATH: MODEL[, exact][,
 * leading TERM]` on the example's line or on the comment lines right below it, by example.
 */
export function readmeFigures(markdown: string): Map<string, Figure[]> {
  const figures = new Map<string, Figure[]>();
  for (const block of markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    let example: string | null = null;
    for (const raw of block[1]!.split('\n')) {
      const trimmed = raw.trim();
      const comment = /^(npx taintlens|npm run)\b/.test(trimmed)
        ? /\s(#\s.*)$/.exec(trimmed)?.[1]
        : trimmed.startsWith('#')
          ? trimmed
          : undefined;
      if (/^(npx taintlens|npm run)\b/.test(trimmed)) example = trimmed.replace(/\s+#\s.*$/, '');
      else if (!trimmed.startsWith('#')) example = null;
      const match = comment !== undefined && example !== null ? FIGURE.exec(comment) : null;
      if (!match || example === null || !/\d/.test(match[2]!)) continue;
      const [model, ...notes] = match[2]!.split(', ');
      const leading = notes.find((note) => note.startsWith('leading '))?.slice('leading '.length) ?? null;
      figures.set(example, [
        ...(figures.get(example) ?? []),
        { callpath: match[1]!, model: model!, exact: notes.includes('exact'), leading },
      ]);
    }
  }
  return figures;
}

/** A model as printed, without the spacing and multiplication signs a renderer may choose. */
const normalized = (model: string) => model.replace(/[\s*·×]/g, '');

const figures = readmeFigures(readFileSync(join(root, 'README.md'), 'utf8'));
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
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, FORCE_COLOR: '0', npm_config_update_notifier: 'false' },
  });
}

describe('README examples', () => {
  test('the README states figures for the deterministic examples: SPMD, multiply, the stencil fixture', () => {
    const stated = [...figures.entries()].flatMap(([line, list]) =>
      list.map((f) => `${line.split(' ').slice(0, 4).join(' ')}: ${f.callpath}`),
    );
    expect(stated).toEqual(
      expect.arrayContaining([
        'npx taintlens model m.jsonl: multiply',
        'npx taintlens model test/model/fixtures/stencil.jsonl: run->sweep',
        'npx taintlens model spmd.jsonl: run->update',
        'npx taintlens model spmd.jsonl: run->pack',
      ]),
    );
    expect(
      readmeFigures(
        '```sh\nnpx taintlens model a.jsonl     # run->f: 3 * n + 2, exact\n# run->g: 5 * n^2, leading 5 * n^2\n```\n',
      ).get('npx taintlens model a.jsonl'),
    ).toEqual([
      { callpath: 'run->f', model: '3 * n + 2', exact: true, leading: null },
      { callpath: 'run->g', model: '5 * n^2', exact: false, leading: '5 * n^2' },
    ]);
  });

  test('the README has examples for every command, all with npx or npm run', () => {
    for (const command of ['run', 'loops', 'taint', 'measure', 'model', 'fuzz', 'instrument']) {
      expect(
        examples.some((line) => line.startsWith(`npx taintlens ${command} `)),
        command,
      ).toBe(true);
    }
    const bare = readFileSync(join(root, 'README.md'), 'utf8')
      .match(/^```sh\n[\s\S]*?^```/gm)!
      .join('\n')
      .split('\n')
      .filter((line) => /^taintlens\s/.test(line.trim()));
    expect(bare, 'a bare `taintlens` line only runs after npm link').toEqual([]);
  });

  test.each(runnable.map((line, i) => [i + 1, line] as const))(
    '%i: %s',
    (_, line) => {
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
      const output = result.stdout
        .split('\n')
        .filter((l) => !/^> /.test(l))
        .join('\n')
        .trim();
      if (!line.includes('>')) expect(output, context).not.toBe('');
      if (/\s--json\b/.test(line) && !/[|>]/.test(line)) {
        expect((JSON.parse(result.stdout) as { schema?: unknown }).schema, context).toMatch(/^taintlens\//);
      }
      // The figures the README prints for this example (instruction counts: they repeat exactly) are the ones it prints.
      const stated = figures.get(line) ?? [];
      if (stated.length === 0) return;
      const printed = run(`${line.replace(/\s(-o|--output)\s+\S+/, '')} --json`);
      const models = (
        JSON.parse(printed.stdout) as {
          models: Array<{ callpath: string; metric: string; model: string; exact?: boolean; leading?: string }>;
        }
      ).models.filter((m) => m.metric === 'instructions');
      // Call paths as the README writes them: each function by its last name (`run->sweep`).
      const short = (callpath: string) =>
        callpath
          .split('->')
          .map((f) => f.slice(f.lastIndexOf('/') + 1))
          .join('->');
      for (const figure of stated) {
        const model = models.find(
          (m) => short(m.callpath) === figure.callpath || short(m.callpath).endsWith(`->${figure.callpath}`),
        );
        expect(model, `${line}: no call path ${figure.callpath} (the README states one)`).toBeDefined();
        expect(normalized(model!.model), `${line}: ${figure.callpath} as the README states it`).toBe(
          normalized(figure.model),
        );
        if (figure.exact) expect(model!.exact, `${line}: ${figure.callpath} is exact, says the README`).toBe(true);
        if (figure.leading !== null)
          expect(normalized(model!.leading ?? ''), `${line}: ${figure.callpath}'s leading term`).toBe(
            normalized(figure.leading),
          );
      }
    },
    120_000,
  );
});
