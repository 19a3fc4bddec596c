#!/usr/bin/env node
// Prints one plain closing line for a vitest run from its JSON report (`--reporter=json
// --outputFile.json=FILE`): "tests: N passed, N failed, N skipped". CI reads that line to tell a run
// that executed tests from one that executed none (vitest's own summary is not a format it reads).
// Exits non-zero when the report is missing, counts no test, or counts a failure.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: test-summary.js REPORT.json');
  process.exit(2);
}
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`test-summary: ${file}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
const passed = Number(report.numPassedTests ?? 0);
const failed = Number(report.numFailedTests ?? 0);
const skipped = Number(report.numPendingTests ?? 0) + Number(report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
