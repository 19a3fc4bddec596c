// The fuzz campaign behind `taintlens fuzz` and `npm run fuzz -- ...` (options: src/cli/commands/fuzz.ts, or
// `--help`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableModes } from '../../instrument/pipeline.js';
import { UserError } from '../util/errors.js';
import { jsonText } from '../report/terminal.js';
import { defaultVariants, type Variant } from './differential.js';
import { formatSummary, isClean, runFuzz, type FuzzSummary } from './run.js';
import { findWasmOpt, generateTtf, type WasmOpt } from './ttf.js';

const PROGRESS_EVERY_MS = 5000;

/** The fuzz command's options, as `taintlens fuzz` parses them (src/cli/commands/fuzz.ts). */
export interface FuzzCliOptions {
  count: number;
  seed: number;
  source: string;
  modes?: string;
  combined?: boolean;
  jobs: number;
  timeout: number;
  shrink: number;
  save: string;
  json?: boolean;
  makeCorpus?: string;
}

function variantsFor(options: FuzzCliOptions): Variant[] {
  let variants: Variant[] = defaultVariants().filter((v) => v.modes.length === 1);
  if (options.modes !== undefined) {
    const wanted = options.modes
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const unknown = wanted.filter((m) => !availableModes().includes(m));
    if (unknown.length || wanted.length === 0)
      throw new UserError(
        `fuzz: unknown mode(s) '${unknown.join(', ') || options.modes}' (available: ${availableModes().join(', ')})`,
        2,
      );
    variants = wanted.map((mode) => ({ name: mode, modes: [mode] }));
  }
  if (options.combined && variants.length > 1)
    variants.push({ name: variants.map((v) => v.name).join('+'), modes: variants.flatMap((v) => v.modes) });
  return variants;
}

/** The pinned wasm-opt when the source needs it (named once at the start), else null. */
function wasmOptFor(source: string, quiet: boolean): WasmOpt | null {
  if (source !== 'ttf' && source !== 'mixed') return null;
  const found = findWasmOpt();
  if (typeof found === 'string') throw new UserError(`fuzz: --source ${source} needs wasm-opt: ${found}`, 2);
  if (!quiet) process.stderr.write(`fuzz: ${found.version} from ${found.path}\n`);
  return found;
}

export async function fuzzCommand(options: FuzzCliOptions): Promise<number> {
  if (options.makeCorpus !== undefined) return makeCorpus(options.makeCorpus, options.seed, options.count);
  const variants = variantsFor(options);
  const wasmOpt = wasmOptFor(options.source, options.json === true);
  const onTerminal = process.stderr.isTTY === true && !options.json;
  let lastReport = Date.now();
  const summary: FuzzSummary = await runFuzz({
    count: options.count,
    seed: options.seed,
    source: options.source,
    variants,
    wasmOpt,
    workers: options.jobs,
    caseTimeoutMs: options.timeout * 1000,
    shrinkMs: options.shrink * 1000,
    saveDir: options.save || null,
    onProgress: (s) => {
      if (!onTerminal || Date.now() - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = Date.now();
      process.stderr.write(
        `fuzz: ${s.cases}/${options.count} cases, ${s.checks} checks, ${s.failures.length} failures\n`,
      );
    },
  });
  process.stdout.write((options.json ? jsonText(summary) : formatSummary(summary)) + '\n');
  return isClean(summary) ? 0 : 1;
}

/** Saves `wasm-opt -ttf` modules for seeds [seed, seed + count) as DIR/ttf-<seed>.wasm (the CI corpus). */
function makeCorpus(dir: string, seed: number, count: number): number {
  wasmOptFor('ttf', false);
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
