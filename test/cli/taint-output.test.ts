// `taint`'s text fits the output width (call paths keep their leaf, lists wrap), `--wide` keeps
// every cell whole, and `-o FILE` writes the report and prints only a summary.
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { renderTaintReport } from '../../src/taint/text.js';
import type { TaintReport } from '../../src/taint/report.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-taint-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A WASI program with libc call paths and a parameter that drives loops, functions and branches. */
const TEXTSTAT = [
  'native/wasm/textstat.wasm',
  '--param',
  'rounds=argv1',
  '--dir',
  'native/data:data',
  '--',
  '3',
  'data/poem.txt',
];

async function textstatReport(): Promise<TaintReport> {
  const result = await cli(['taint', ...TEXTSTAT.slice(0, 5), '--json', ...TEXTSTAT.slice(5)]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as TaintReport;
}

test('every line fits the width; --wide keeps call paths whole', async () => {
  const report = await textstatReport();
  for (const width of [72, 80, 100]) {
    const lines = renderTaintReport(report, false, undefined, { width }, width).split('\n');
    const over = lines.filter((line) => line.length > width);
    expect(over, `width ${width}`).toEqual([]);
    expect(
      lines.some((line) => /^hash_rounds\s.*….*hash_rounds$/.test(line)),
      `width ${width}: call path shortened from the left`,
    ).toBe(true);
  }
  const wide = renderTaintReport(report, false, undefined, { width: 60, wide: true }).split('\n');
  expect(Math.max(...wide.map((line) => line.length))).toBeGreaterThan(60);
  expect(wide.some((line) => /_start > .*main > hash_rounds$/.test(line))).toBe(true);
}, 120_000);

test('-o FILE writes the whole report and prints a summary, not the tables', async () => {
  const file = join(dir, 'taint.json');
  const result = await cli(['taint', ...TEXTSTAT.slice(0, 5), '-o', file, ...TEXTSTAT.slice(5)]);
  expect(result.code, result.stderr).toBe(0);
  const written = JSON.parse(readFileSync(file, 'utf8')) as TaintReport;
  expect(written.schema).toMatch(/^taintlens\/taint@/);
  const printed = result.stdout
    .split('\n')
    .filter((line) => !/^(data\/poem\.txt|stdin|hash after)/.test(line) && line !== '');
  expect(printed[0]).toBe(`wrote ${file}: the taint report of native/wasm/textstat.wasm`);
  expect(result.stdout).toContain('parameters: rounds');
  expect(result.stdout).toMatch(
    /\d+ of \d+ executed loop\(s\), \d+ of \d+ function\(s\) and \d+ branch\(es\) depend on a parameter/,
  );
  expect(result.stdout).not.toContain('functions (dependency');
  expect(printed.length).toBeLessThan(10);
}, 120_000);
