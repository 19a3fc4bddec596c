// Measurement and taint readers: the formats, and one clear `file: line N: problem` per mistake.
import { describe, expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectFormat, parseExtrapText, parseJsonLines, readMeasurements } from '../../src/io/measurements.js';
import { parseTaintReport, readTaintReport } from '../../src/io/taint.js';
import { UserError } from '../../src/util/errors.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-model-readers-');
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const TEXT = `# two parameters
PARAMETER p
PARAMETER n
POINTS (4 100) (8 100)
POINTS (16 100)
REGION main->solve
METRIC time
DATA 1.0 1.1 0.9
DATA 2.0 2.1
DATA 4.0
METRIC visits
DATA 1
DATA 1
DATA 1
REGION main->setup
METRIC time
DATA 5 5 5
DATA 5 5 5
DATA 5 5 5
`;

describe('Extra-P text format', () => {
  test('parameters, points, regions, metrics and repetitions', () => {
    const experiment = parseExtrapText(TEXT, 'm.txt');
    expect(experiment.params).toEqual(['p', 'n']);
    expect(experiment.series.map((s) => `${s.callpath}/${s.metric}`)).toEqual([
      'main->solve/time',
      'main->solve/visits',
      'main->setup/time',
    ]);
    expect(experiment.series[0]!.points).toEqual([
      { coords: [4, 100], values: [1.0, 1.1, 0.9] },
      { coords: [8, 100], values: [2.0, 2.1] },
      { coords: [16, 100], values: [4.0] },
    ]);
  });

  test('one parameter without parentheses, and the parenthesized coordinate form', () => {
    expect(
      parseExtrapText('PARAMETER p\nPOINTS 4 8 16\nREGION r\nDATA 1\nDATA 2\nDATA 3\n', 'a.txt').series[0]!.points.map(
        (p) => p.coords,
      ),
    ).toEqual([[4], [8], [16]]);
    expect(
      parseExtrapText(
        'PARAMETER p n\nPOINTS ((4) (1)) ((8) (2))\nREGION r\nDATA 1\nDATA 2\n',
        'b.txt',
      ).series[0]!.points.map((p) => p.coords),
    ).toEqual([
      [4, 1],
      [8, 2],
    ]);
  });

  test.each([
    ['unknown keyword', 'PARAMETER p\nPOINTS 1 2 3\nREGON r\n', /^bad\.txt: line 3: unknown keyword "REGON"/],
    [
      'not a number',
      'PARAMETER p\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2x\n',
      /^bad\.txt: line 5: "2x" is not a number/,
    ],
    [
      'too many DATA lines',
      'PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n',
      /^bad\.txt: line 6: more DATA lines than POINTS \(2\)/,
    ],
    [
      'too few DATA lines',
      'PARAMETER p\nPOINTS 1 2 3\nREGION r\nDATA 1\nREGION s\nDATA 1\nDATA 2\nDATA 3\n',
      /^bad\.txt: line 3: REGION r METRIC time has 1 DATA line for 3 POINTS/,
    ],
    [
      'too few at the end',
      'PARAMETER p\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2\n',
      /^bad\.txt: line 3: REGION r METRIC time has 2 DATA lines for 3 POINTS/,
    ],
    [
      'wrong coordinate count',
      'PARAMETER p n\nPOINTS (1 2) (3)\n',
      /^bad\.txt: line 2: point \(3\) has 1 coordinate, expected 2/,
    ],
    [
      'two parameters without parentheses',
      'PARAMETER p n\nPOINTS 1 2\n',
      /^bad\.txt: line 2: POINTS for 2 parameters need parentheses/,
    ],
    ['DATA before REGION', 'PARAMETER p\nPOINTS 1 2 3\nDATA 1\n', /^bad\.txt: line 3: DATA before any REGION/],
    ['DATA before POINTS', 'PARAMETER p\nREGION r\nDATA 1\n', /^bad\.txt: line 3: DATA before POINTS/],
    ['POINTS before PARAMETER', 'POINTS 1 2 3\n', /^bad\.txt: line 1: POINTS before any PARAMETER/],
    ['duplicate point', 'PARAMETER p\nPOINTS 1 2 1\n', /^bad\.txt: line 2: point \(1\) listed twice/],
    ['duplicate parameter', 'PARAMETER p\nPARAMETER p\n', /^bad\.txt: line 2: parameter "p" given twice/],
    ['unbalanced parentheses', 'PARAMETER p n\nPOINTS (1 2\n', /^bad\.txt: line 2: unbalanced \( in POINTS/],
    [
      'region twice',
      'PARAMETER p\nPOINTS 1\nREGION r\nDATA 1\nREGION r\nDATA 2\n',
      /^bad\.txt: line 6: REGION r METRIC time given twice/,
    ],
    ['no data', 'PARAMETER p\nPOINTS 1 2 3\n', /^bad\.txt: no DATA lines/],
    ['empty', '', /^bad\.txt: no PARAMETER line/],
  ])('%s', (_name, text, message) => {
    expect(() => parseExtrapText(text, 'bad.txt')).toThrow(UserError);
    expect(() => parseExtrapText(text, 'bad.txt')).toThrow(message);
  });
});

describe('JSON Lines', () => {
  const JSONL = [
    '{"params":{"p":4,"n":100},"callpath":"main->k","metric":"time","value":1.2}',
    '{"params":{"n":100,"p":4},"callpath":"main->k","metric":"time","value":1.3}',
    '',
    '{"params":{"p":8,"n":100},"callpath":"main->k","value":[2.1,2.2]}',
    '{"params":{"p":8,"n":100},"value":7}',
  ].join('\n');

  test('one object per repetition; lists of values; defaults for callpath and metric', () => {
    const experiment = parseJsonLines(JSONL, 'm.jsonl');
    expect(experiment.params).toEqual(['p', 'n']);
    const k = experiment.series.find((s) => s.callpath === 'main->k')!;
    expect(k.points).toEqual([
      { coords: [4, 100], values: [1.2, 1.3] },
      { coords: [8, 100], values: [2.1, 2.2] },
    ]);
    expect(experiment.series.find((s) => s.callpath === '<root>')!.metric).toBe('time');
  });

  test.each([
    ['broken JSON', '{"params":{"p":4},"value":1}\n{"params":{"p":8},"value":', /^bad\.jsonl: line 2: not valid JSON/],
    ['not an object', '[1,2]\n', /^bad\.jsonl: line 1: expected a JSON object/],
    ['missing params', '{"value":1}\n', /^bad\.jsonl: line 1: "params" must be an object/],
    [
      'non-numeric value',
      '{"params":{"p":4},"value":"fast"}\n',
      /^bad\.jsonl: line 1: "value" must be a finite number/,
    ],
    ['missing value', '{"params":{"p":4}}\n', /^bad\.jsonl: line 1: "value" must be a finite number/],
    [
      'non-numeric parameter',
      '{"params":{"p":"four"},"value":1}\n',
      /^bad\.jsonl: line 1: parameter "p" must be a finite number/,
    ],
    [
      'different parameters',
      '{"params":{"p":4},"value":1}\n\n{"params":{"q":4},"value":1}\n',
      /^bad\.jsonl: line 3: parameters \{q\} differ from \{p\} on line 1/,
    ],
    [
      'bad callpath',
      '{"params":{"p":4},"value":1,"callpath":7}\n',
      /^bad\.jsonl: line 1: "callpath" must be a non-empty string/,
    ],
    ['empty file', '\n\n', /^bad\.jsonl: no measurements/],
  ])('%s', (_name, text, message) => {
    expect(() => parseJsonLines(text, 'bad.jsonl')).toThrow(message);
  });
});

describe('format detection and files', () => {
  test('by extension, then by content', () => {
    expect(detectFormat('PARAMETER p', 'a.jsonl')).toBe('jsonl');
    expect(detectFormat('{"params":{}}', 'a.txt')).toBe('jsonl');
    expect(detectFormat('# c\nPARAMETER p', 'a.dat')).toBe('extrap-text');
    expect(detectFormat('{"parameters":["p"],"measurements":{}}', 'a.json')).toBe('extrap-json');
    expect(detectFormat('{"params":{"p":1},"value":1}\n{"params":{"p":2},"value":1}', 'a.json')).toBe('jsonl');
  });

  test("Extra-P's JSON format", () => {
    const path = file(
      'x.json',
      JSON.stringify({
        parameters: ['p'],
        measurements: {
          'main->k': {
            time: [
              { point: [4], values: [1, 2] },
              { point: [8], values: [3] },
            ],
          },
        },
      }),
    );
    const experiment = readMeasurements(path);
    expect(experiment.series[0]).toMatchObject({
      callpath: 'main->k',
      metric: 'time',
      points: [
        { coords: [4], values: [1, 2] },
        { coords: [8], values: [3] },
      ],
    });
    const bad = file('y.json', '{"parameters":["p"],\n"measurements":{"k":{"time":[{"point":[1,2],"values":[1]}]}}}');
    expect(() => readMeasurements(bad)).toThrow(
      /y\.json: line 2: measurements\["k"\]\["time"\]\[0\]\.point must list 1 numbers/,
    );
    const broken = file('z.json', '{"parameters":["p"],\n"measurements": {\n');
    expect(() => readMeasurements(broken)).toThrow(/z\.json: line 3: not valid JSON/);
  });

  test('a missing file names the file', () => {
    expect(() => readMeasurements(join(dir, 'absent.txt'))).toThrow(/absent\.txt: no such file/);
  });
});

describe('taint report reader', () => {
  const report = {
    schema: 'taintlens/taint@1',
    module: 'k.wasm',
    parameters: ['n', 'p'],
    loops: [{ id: 'L0', function: 'solve', parent: null, depth: 0, params: ['n'], iterations: 10, executed: true }],
    functions: [
      {
        name: 'solve',
        params: ['n', 'p'],
        dependency: 'n*p',
        pruned: null,
        loops: ['L0'],
        callpath: ['main', 'solve'],
        executed: true,
      },
      { name: 'init', params: [], dependency: null, pruned: 'static', loops: [], callpath: null, executed: true },
    ],
    branches: [],
    warnings: ['something'],
  };

  test('reads what the modeler needs and ignores the rest', () => {
    const parsed = readTaintReport(file('taint.json', JSON.stringify(report)));
    expect(parsed.functions.get('solve')).toMatchObject({ monomials: [['n', 'p']], pruned: null });
    expect(parsed.functions.get('init')).toMatchObject({ monomials: null, pruned: 'static' });
    expect(parsed.loops).toEqual([{ id: 'L0', function: 'solve', parent: null, params: ['n'] }]);
  });

  test.each([
    [
      'wrong schema',
      { ...report, schema: 'taintlens/loops@1' },
      /^t\.json: not a taint report \(schema "taintlens\/loops@1"/,
    ],
    [
      'newer version',
      { ...report, schema: 'taintlens/taint@3' },
      /^t\.json: unsupported taint report version taintlens\/taint@3/,
    ],
    ['no functions', { schema: 'taintlens/taint@1' }, /^t\.json: "functions" must be a list/],
    [
      'bad dependency',
      { ...report, functions: [{ name: 'f', dependency: 'n*(p' }] },
      /^t\.json: functions\[0\] \(f\): missing \) in dependency "n\*\(p"/,
    ],
    [
      'dependency not a string',
      { ...report, functions: [{ name: 'f', dependency: 3 }] },
      /^t\.json: functions\[0\] \(f\): "dependency" must be a string or null/,
    ],
    [
      'nameless function',
      { ...report, functions: [{ dependency: 'n' }] },
      /^t\.json: functions\[0\]: "name" must be a non-empty string/,
    ],
    ['bad loop', { ...report, loops: [{ id: 'L0' }] }, /^t\.json: loops\[0\]: "function" must be a string/],
    ['branches not a list', { ...report, branches: {} }, /^t\.json: "branches" must be a list/],
    [
      'bad branch',
      { ...report, branches: [{ id: 'B0', function: 'f', params: 'n' }] },
      /^t\.json: branches\[0\]: "params" must be a list of names/,
    ],
  ])('%s', (_name, json, message) => {
    expect(() => parseTaintReport(json, 't.json')).toThrow(message);
  });

  test('invalid JSON names the line', () => {
    expect(() => readTaintReport(file('broken.json', '{\n  "functions": [\n    oops\n  ]\n}'))).toThrow(
      /broken\.json: line 3: not valid JSON \(unexpected "o"\)/,
    );
  });
});
