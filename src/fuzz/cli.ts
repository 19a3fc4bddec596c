// `npm run fuzz -- --count N --seed S`: differential fuzzing of every instrumentation mode.
//   --source mixed|ttf|gen|DIR   modules from wasm-opt -ttf, our generator, both (default), or saved files
//   --modes a,b                  modes to check (default: every registered mode)
//   --combined                   also check all modes applied together
//   --jobs J                     worker threads (default: one per core)
//   --timeout S                  wall-clock limit per case in seconds (default 30)
//   --shrink S                   time budget to shrink each failure in seconds (default 60; 0: off)
//   --save DIR                   where reproducers go (default test/fuzz/regressions; '' : nowhere)
//   --json                       print the summary as JSON
//   --make-corpus DIR            write wasm-opt -ttf modules for the seeds to DIR instead of checking
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { availableModes } from '../../instrument/pipeline.js';
import { defaultVariants, type Variant } from './differential.js';
import { defaultWorkers, formatSummary, isClean, runFuzz } from './run.js';
import { generateTtf, wasmOptPath } from './ttf.js';

export async function fuzzMain(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        count: { type: 'string', default: '100' },
        seed: { type: 'string', default: '1' },
        source: { type: 'string', default: 'mixed' },
        modes: { type: 'string' },
        combined: { type: 'boolean', default: false },
        jobs: { type: 'string' },
        timeout: { type: 'string', default: '30' },
        shrink: { type: 'string', default: '60' },
        save: { type: 'string', default: 'test/fuzz/regressions' },
        json: { type: 'boolean', default: false },
        'make-corpus': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`fuzz: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write('usage: npm run fuzz -- [--count N] [--seed S] [--source mixed|ttf|gen|DIR] [--modes a,b] [--combined] [--jobs J] [--timeout S] [--shrink S] [--save DIR] [--json] [--make-corpus DIR]\n');
    return 0;
  }
  const count = wholeNumber(values.count, '--count');
  const seed = wholeNumber(values.seed, '--seed');
  if (count === null || seed === null) return 2;
  if (values['make-corpus']) return makeCorpus(values['make-corpus'], seed, count);
  let variants: Variant[] = defaultVariants().filter((v) => v.modes.length === 1);
  if (values.modes) {
    const wanted = values.modes.split(',').map((m) => m.trim()).filter(Boolean);
    const unknown = wanted.filter((m) => !availableModes().includes(m));
    if (unknown.length) {
      process.stderr.write(`fuzz: unknown mode(s) ${unknown.join(', ')} (available: ${availableModes().join(', ')})\n`);
      return 2;
    }
    variants = wanted.map((mode) => ({ name: mode, modes: [mode] }));
  }
  if (values.combined && variants.length > 1) variants.push({ name: variants.map((v) => v.name).join('+'), modes: variants.flatMap((v) => v.modes) });
  if (values.source === 'ttf' && !wasmOptPath()) {
    process.stderr.write('fuzz: --source ttf needs wasm-opt (Debian package binaryen, or set TAINTLENS_WASM_OPT)\n');
    return 2;
  }
  let lastReport = Date.now();
  const summary = await runFuzz({
    count, seed, source: values.source, variants,
    workers: values.jobs ? Number(values.jobs) : defaultWorkers(),
    caseTimeoutMs: Number(values.timeout) * 1000,
    shrinkMs: Number(values.shrink) * 1000,
    saveDir: values.save || null,
    onProgress: (s) => {
      if (Date.now() - lastReport < 5000 || values.json) return;
      lastReport = Date.now();
      process.stderr.write(`fuzz: ${s.cases}/${count} cases, ${s.checks} checks, ${s.failures.length} failures\n`);
    },
  });
  process.stdout.write((values.json ? JSON.stringify(summary, null, 2) : formatSummary(summary)) + '\n');
  return isClean(summary) ? 0 : 1;
}

function wholeNumber(text: string, flag: string): number | null {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`fuzz: ${flag} must be a whole number, got '${text}'\n`);
    return null;
  }
  return n;
}

/** Saves `wasm-opt -ttf` modules for seeds [seed, seed + count) as DIR/ttf-<seed>.wasm (the CI corpus). */
function makeCorpus(dir: string, seed: number, count: number): number {
  if (!wasmOptPath()) {
    process.stderr.write('fuzz: --make-corpus needs wasm-opt (Debian package binaryen, or set TAINTLENS_WASM_OPT)\n');
    return 2;
  }
  mkdirSync(dir, { recursive: true });
  let written = 0;
  let bytes = 0;
  for (let s = seed; s < seed + count; s++) {
    const module = generateTtf(s);
    if (!WebAssembly.validate(module as Uint8Array<ArrayBuffer>)) continue;
    writeFileSync(join(dir, `ttf-${s}.wasm`), module);
    written++;
    bytes += module.length;
  }
  process.stdout.write(`wrote ${written} modules (${bytes.toLocaleString('en-US')} bytes) to ${dir}\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  fuzzMain(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (error) => {
    process.stderr.write(`fuzz: internal error: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 70;
  });
}
