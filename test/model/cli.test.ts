// `taintlens model` end to end, in-process: both input formats, the taint prior, --target,
// --growth-threshold, --aggregate, --json, -o, and clear one-line errors with a non-zero exit.
import { describe, expect, test } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { parseModelsDocument } from '../../src/io/models.js';
import { grid2, log2 } from './helpers.js';
import type { Series } from '../../src/model/types.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-model-cli-');
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

function jsonl(series: Series[]): string {
  return series
    .flatMap((s) =>
      s.points.flatMap((point) =>
        point.values.map((value) =>
          JSON.stringify({
            params: Object.fromEntries(s.params.map((p, l) => [p, point.coords[l]])),
            callpath: s.callpath,
            metric: s.metric,
            value,
          }),
        ),
      ),
    )
    .join('\n');
}

function extrapText(series: Series[]): string {
  const lines = [
    'PARAMETER p',
    'PARAMETER n',
    'POINTS ' + series[0]!.points.map((pt) => `(${pt.coords.join(' ')})`).join(' '),
  ];
  for (const s of series) {
    lines.push(`REGION ${s.callpath}`, `METRIC ${s.metric}`);
    for (const pt of s.points) lines.push('DATA ' + pt.values.join(' '));
  }
  return lines.join('\n') + '\n';
}

const series = [
  grid2('main->solve', (p, n) => 2 + 0.001 * p * n * log2(n)),
  grid2('main->exchange', (p) => 3 + 0.5 * p ** 0.5),
  grid2('main->contended', (p, n) => 1 + 0.1 * n + 0.05 * p * p),
];
const taint = file(
  'taint.json',
  JSON.stringify({
    schema: 'taintlens/taint@1',
    parameters: ['p', 'n'],
    loops: [],
    functions: [
      { name: 'solve', params: ['n', 'p'], dependency: 'p*n', pruned: null },
      { name: 'exchange', params: ['n', 'p'], dependency: 'p*n', pruned: null },
      { name: 'contended', params: ['n'], dependency: 'n', pruned: null },
    ],
    warnings: [],
  }),
);

describe('taintlens model', () => {
  test('human output: a ranked table with models, SMAPE, predictions and flags', async () => {
    const { code, stdout, stderr } = await cli(['model', file('m.jsonl', jsonl(series)), '--target', 'p=1024,n=4096']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/ranked by the value predicted at p=1024, n=4096/);
    expect(stdout).toMatch(/rank\s+callpath\s+model\s+SMAPE\s+predicted\s+status\s+flags/);
    const rows = stdout.split('\n').filter((line) => /^\s+\d+\s+main->/.test(line));
    expect(rows.map((row) => row.trim().split(/\s+/)[1])).toEqual(['main->contended', 'main->solve', 'main->exchange']);
    expect(stdout).not.toMatch(/contention/);
    expect(stdout).toMatch(
      /main->solve\s+2\.005\s+\d+\.\d+%\s+\S+\s+fit\s+scalability-bug:n\n\s+\+ \S+ \* p \* n \* log2\(n\)/,
    );
    expect(stdout).toMatch(/scalability-bug: grows faster than the main work/);
  });

  test('Extra-P text input and the taint prior: contention and too-narrow flags', async () => {
    const { code, stdout } = await cli(['model', file('m.txt', extrapText(series)), '--taint', taint]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/taint prior from .*taint\.json/);
    expect(stdout).toMatch(/main->contended .*contention:p/);
    expect(stdout).toMatch(/main->exchange .*too-narrow:n/);
    expect(stdout).toMatch(/contention: the measurements grow with a parameter the code cannot depend on/);
  });

  test('--json and -o: the models document (schema taintlens/models@1)', async () => {
    const out = join(dir, 'out', 'models.json');
    const { code, stdout } = await cli([
      'model',
      file('j.jsonl', jsonl(series)),
      '--json',
      '-o',
      out,
      '--taint',
      taint,
      '--growth-threshold',
      '1,n=2',
      '--aggregate',
      'mean',
    ]);
    expect(code).toBe(0);
    const document = parseModelsDocument(JSON.parse(stdout), 'stdout');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(stdout));
    expect(document).toMatchObject({
      schema: 'taintlens/models@1',
      params: ['p', 'n'],
      aggregate: 'mean',
      growthThreshold: { default: 1, perParam: { n: 2 } },
    });
    const solve = document.models.find((m) => m.callpath === 'main->solve')!;
    expect(Object.keys(solve)).toEqual(
      expect.arrayContaining(['callpath', 'metric', 'params', 'model', 'terms', 'cv', 'smape', 'flags']),
    );
    expect(solve.terms[0]).toEqual({ coefficient: expect.any(Number), factors: [] });
    expect(solve.terms[1]!.factors).toEqual([
      { param: 'p', exponent: 1, log: 0 },
      { param: 'n', exponent: 1, log: 1 },
    ]);
    expect(solve.flags).not.toContain('scalability-bug:n'); // n log n is within n^2
    expect(solve.cv).toBeLessThan(0.1);
    expect(solve.loo).toBeGreaterThan(0);
    expect(solve.loo).toBeLessThan(5);
    const contended = document.models.find((m) => m.callpath === 'main->contended')!;
    expect(contended.flags).toContain('contention:p');
    expect(contended.model).toMatch(/p\^2/);
    expect(contended.alternative).toMatchObject({ basis: 'taint prior' });
    expect(existsSync(join(dir, 'out'))).toBe(true);
  });

  test('--metric picks one metric', async () => {
    const two = [...series, grid2('main->solve', (p) => 7 + p, { metric: 'bytes' })];
    const { code, stdout } = await cli(['model', file('two.jsonl', jsonl(two)), '--metric', 'bytes', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).models.map((m: { metric: string }) => m.metric)).toEqual(['bytes']);
  });

  test.each([
    [
      'malformed text file',
      () => ['model', file('bad.txt', 'PARAMETER p\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA two\n')],
      /^taintlens: .*bad\.txt: line 5: "two" is not a number$/,
    ],
    [
      'malformed JSON Lines',
      () => ['model', file('bad.jsonl', '{"params":{"p":1},"value":1}\n{"params":{"p":2},"value":}\n')],
      /^taintlens: .*bad\.jsonl: line 2: not valid JSON/,
    ],
    ['missing file', () => ['model', join(dir, 'absent.jsonl')], /^taintlens: .*absent\.jsonl: no such file$/],
    [
      'bad taint report',
      () => [
        'model',
        file('ok.jsonl', jsonl(series)),
        '--taint',
        file('t.json', '{"schema":"taintlens/taint@1","functions":[{"name":"f","dependency":"n*"}]}'),
      ],
      /^taintlens: .*t\.json: functions\[0\] \(f\): unexpected end in dependency "n\*"$/,
    ],
    [
      'unknown target parameter',
      () => ['model', file('ok2.jsonl', jsonl(series)), '--target', 'q=4'],
      /^taintlens: --target: unknown parameter "q" \(measured: p, n\)$/,
    ],
    [
      'incomplete target',
      () => ['model', file('ok3.jsonl', jsonl(series)), '--target', 'p=4'],
      /^taintlens: --target: no value for n$/,
    ],
    [
      'bad growth threshold',
      () => ['model', file('ok4.jsonl', jsonl(series)), '--growth-threshold', 'n=fast'],
      /^taintlens: --growth-threshold n: "fast" is not a number$/,
    ],
    [
      'unknown metric',
      () => ['model', file('ok5.jsonl', jsonl(series)), '--metric', 'energy'],
      /^taintlens: .*ok5\.jsonl: no metric "energy" \(found: time\)$/,
    ],
  ])('%s: one line naming the problem, non-zero exit', async (_name, args, message) => {
    const { code, stderr, stdout } = await cli(args());
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr.trim()).toMatch(message);
  });

  test("--fit and the noise line: the repetitions' noise shape, and the fit it picks", async () => {
    // Three call paths are too little evidence that ±1% uniform jitter is bounded: least squares.
    const few = await cli(['model', file('few.jsonl', jsonl(series))]);
    expect(few.stdout).toMatch(
      /^noise: normal \(excess kurtosis -?\d+\.\d+ ± \d+\.\d+ over 375 repetitions\); shapes chosen by least squares on the aggregated values$/m,
    );
    const forced = await cli(['model', file('few2.jsonl', jsonl(series)), '--fit', 'minimax', '--json']);
    expect(forced.code).toBe(0);
    const document = parseModelsDocument(JSON.parse(forced.stdout), 'stdout');
    expect(document.noise).toEqual([
      {
        metric: 'time',
        shape: 'normal',
        excessKurtosis: expect.any(Number),
        standardError: expect.any(Number),
        samples: 375,
        fit: 'minimax',
      },
    ]);
    expect(document.models.find((m) => m.callpath === 'main->solve')!.model).toMatch(
      /^\S+ \+ \S+ \* p \* n \* log2\(n\)$/,
    );
    // Twenty call paths with the same jitter: bounded, so minimax.
    const many = Array.from({ length: 20 }, (_, k) =>
      grid2(`main->k${k}`, (p, n) => 2 + 0.01 * p * n, { seed: k + 1, noise: 0.05 }),
    );
    const auto = await cli(['model', file('many.jsonl', jsonl(many))]);
    expect(auto.stdout).toMatch(
      /^noise: bounded \(excess kurtosis -1\.\d+ ± 0\.\d+ over 2500 repetitions\); shapes chosen by how tightly they cover every repetition$/m,
    );
    const refused = await cli(['model', file('many2.jsonl', jsonl(many)), '--fit', 'cubic']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--fit.*cubic/);
  });

  test('an unknown aggregate is refused by the option parser', async () => {
    const { code, stderr } = await cli(['model', file('ok6.jsonl', jsonl(series)), '--aggregate', 'mode']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--aggregate.*mode/);
  });
});
