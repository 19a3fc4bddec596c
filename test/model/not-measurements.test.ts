// `taintlens model` given something that is not measurements says what it is, in one line naming
// the file: a taint report (valid JSON, but not measurements), another Taintlens document, one
// pretty-printed JSON document, and strings where numbers belong.
import { expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-model-input-');
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const taintReport = {
  schema: 'taintlens/taint@1',
  module: 'k.wasm',
  parameters: ['n'],
  loops: [],
  functions: [],
  warnings: [],
};
const measurements = (n: (i: number) => unknown, value: (i: number) => unknown) =>
  [1, 2, 3, 4, 5].map((i) => JSON.stringify({ params: { n: n(i) }, callpath: 'main', value: value(i) })).join('\n') +
  '\n';

test.each([
  [
    'a taint report (pretty)',
    'taint.json',
    JSON.stringify(taintReport, null, 2),
    /taint\.json: is a taint report, not measurements: give it with --taint/,
  ],
  [
    'a taint report (one line, .jsonl)',
    'taint.jsonl',
    JSON.stringify(taintReport),
    /taint\.jsonl: is a taint report, not measurements/,
  ],
  [
    'a site table',
    'k.sites.json',
    JSON.stringify({ schema: 'taintlens/sites@1', functions: [] }, null, 2),
    /k\.sites\.json: is a Taintlens sites document \(taintlens\/sites@1\), not measurements/,
  ],
  ['one JSON document', 'doc.json', '{\n  "n": [1, 2, 3]\n}\n', /doc\.json: is one JSON document, not measurements/],
  [
    'a parameter value that is a string',
    'sp.jsonl',
    measurements(
      (i) => (i === 3 ? '3' : i),
      (i) => i * 2,
    ),
    /sp\.jsonl: line 3: parameter "n" must be a finite number, not the string "3"/,
  ],
  [
    'a measurement value that is a string',
    'sv.jsonl',
    measurements(
      (i) => i,
      (i) => (i === 4 ? '8 ms' : i * 2),
    ),
    /sv\.jsonl: line 4: "value" must be a finite number or a list of them, not the string "8 ms"/,
  ],
  [
    'a string among listed values',
    'sl.jsonl',
    measurements(
      (i) => i,
      (i) => [i, String(i)],
    ),
    /sl\.jsonl: line 1: "value" must be a finite number or a list of them, not the string "1"/,
  ],
  [
    'a string in Extra-P JSON',
    'x.json',
    JSON.stringify({ parameters: ['n'], measurements: { main: { time: [{ point: [1], values: ['2'] }] } } }),
    /x\.json: line 1: measurements\["main"\]\["time"\]\[0\]\.values must be a non-empty list of numbers, not the string "2"/,
  ],
])('%s', async (_name, name, text, message) => {
  const { code, stdout, stderr } = await cli(['model', file(name, text)]);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toMatch(message);
  expect(stderr.trim().split('\n')).toHaveLength(1);
});

test('numbers still read, and a one-line JSON Lines file is not taken for a document', async () => {
  const ok = await cli([
    'model',
    file(
      'ok.jsonl',
      measurements(
        (i) => i,
        (i) => i * 2,
      ),
    ),
    '--json',
  ]);
  expect(ok.code).toBe(0);
  const one = await cli(['model', file('one.json', JSON.stringify({ params: { n: 1 }, value: 2 })), '--json']);
  expect(one.stderr).not.toMatch(/JSON document/);
});
