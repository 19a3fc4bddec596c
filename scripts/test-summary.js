#!/usr/bin/env node
// Prints one plain closing line for vitest runs from their JSON reports (`--reporter=json
// --outputFile.json=FILE`, one per run: npm test and npm run test:system): "tests: N passed,
// N failed, N skipped", summed. CI reads that line to tell a run that executed tests from one that
// executed none (vitest's own summary is not a format it reads). Exits non-zero when a report is
// missing, counts no test, or counts a failure.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: test-summary.js REPORT.json [REPORT.json …]');
  process.exit(2);
}
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`test-summary: ${file}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
  passed += Number(report.numPassedTests ?? 0);
  failed += Number(report.numFailedTests ?? 0);
  skipped += Number(report.numPendingTests ?? 0) + Number(report.numTodoTests ?? 0);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
