// A fuzz campaign: cases from a source, checked on a worker pool, failures shrunk and saved as
// reproducers (`<variant>-<seed>.wasm` plus a JSON note), and a summary with the figures.
import { mkdirSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic-write.js';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { defaultVariants, isFailure, type Variant, type VariantOutcome } from './differential.js';
import { corpusCases } from './sources.js';
import { runPool, type WorkerReply, type WorkerRequest } from './pool.js';
import type { WasmOpt } from './ttf.js';

export interface FuzzOptions {
  count: number;
  seed: number;
  /** ttf, gen, mixed, or a directory of saved modules. */
  source: string;
  variants?: Variant[];
  workers?: number;
  caseTimeoutMs?: number;
  shrinkMs?: number;
  /** Where reproducers go; null: not saved. */
  saveDir?: string | null;
  /** The wasm-opt that makes ttf modules (recorded: a seed's module depends on its version). */
  wasmOpt?: WasmOpt | null;
  onProgress?: (summary: FuzzSummary) => void;
}

export interface FuzzFailure {
  seed: number;
  source: string;
  variant: string;
  outcome: VariantOutcome;
  file?: string;
}

export interface FuzzSummary {
  schema: 'taintlens/fuzz@1';
  seed: number;
  source: string;
  /** `wasm-opt version N (...)` and where it is, when the source used it. */
  wasmOpt: { version: string; path: string } | null;
  variants: string[];
  /** Cases handed out (generated or read). */
  cases: number;
  /** Cases run and compared under every variant. */
  modules: number;
  /** Module × variant runs compared. */
  checks: number;
  skipped: Record<string, number>;
  nondeterministic: number[];
  timeouts: number[];
  errors: Array<{ seed: number; message: string }>;
  perVariant: Record<string, Record<VariantOutcome['status'], number>>;
  /** Reasons a mode declined modules, with counts. */
  unsupported: Record<string, number>;
  failures: FuzzFailure[];
  elapsedMs: number;
  msPer1000Modules: number;
}

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

export function isClean(summary: FuzzSummary): boolean {
  return summary.failures.length === 0 && summary.errors.length === 0 && summary.timeouts.length === 0;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const variants = options.variants ?? defaultVariants();
  const started = Date.now();
  const summary: FuzzSummary = {
    schema: 'taintlens/fuzz@1',
    seed: options.seed,
    source: options.source,
    wasmOpt: options.wasmOpt ? { version: options.wasmOpt.version, path: options.wasmOpt.path } : null,
    variants: variants.map((v) => v.name),
    cases: 0,
    modules: 0,
    checks: 0,
    skipped: {},
    nondeterministic: [],
    timeouts: [],
    errors: [],
    perVariant: Object.fromEntries(
      variants.map((v) => [v.name, { agree: 0, 'stack-overflow': 0, unsupported: 0, crash: 0, mismatch: 0 }]),
    ),
    unsupported: {},
    failures: [],
    elapsedMs: 0,
    msPer1000Modules: 0,
  };
  const shrinkMs = options.shrinkMs ?? 60_000;
  const requests = function* (): Generator<WorkerRequest> {
    if (options.source !== 'ttf' && options.source !== 'gen' && options.source !== 'mixed') {
      const cases = corpusCases(options.source).slice(0, options.count);
      for (const [id, c] of cases.entries())
        yield { id, seed: c.seed, source: c.source, bytes: c.bytes, variants, shrinkMs };
      return;
    }
    for (let i = 0; i < options.count; i++)
      yield { id: i, seed: options.seed + i, source: options.source, variants, shrinkMs };
  };
  const onReply = (reply: WorkerReply) => {
    const { report } = reply;
    summary.cases++;
    if (report.timeout) summary.timeouts.push(report.seed);
    else if (report.error) summary.errors.push({ seed: report.seed, message: report.error });
    else if (report.skipped) {
      const reason = report.skipped.replace(/@\+\d+|#\d+|\d+ bytes/g, '').slice(0, 120);
      summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
    } else if (report.nondeterministic) summary.nondeterministic.push(report.seed);
    else {
      summary.modules++;
      for (const [name, outcome] of Object.entries(report.variants)) {
        summary.checks++;
        summary.perVariant[name]![outcome.status]++;
        if (outcome.status === 'unsupported') {
          const reason = outcome.message.replace(/^seed-\d+\.wasm: /, '');
          summary.unsupported[`${name}: ${reason}`] = (summary.unsupported[`${name}: ${reason}`] ?? 0) + 1;
        }
        if (!isFailure(outcome)) continue;
        const failure: FuzzFailure = { seed: report.seed, source: report.source, variant: name, outcome };
        const reduced = reply.reduced?.find((r) => r.variant === name);
        if (options.saveDir && reduced)
          failure.file = saveReproducer(
            options.saveDir,
            failure,
            reduced.bytes,
            reply.original,
            summary.wasmOpt?.version,
          );
        summary.failures.push(failure);
      }
    }
    options.onProgress?.(summary);
  };
  await runPool(requests(), {
    workers: options.workers ?? defaultWorkers(),
    caseTimeoutMs: options.caseTimeoutMs ?? 30_000,
    onReply,
  });
  summary.elapsedMs = Date.now() - started;
  summary.msPer1000Modules = summary.cases ? Math.round((summary.elapsedMs / summary.cases) * 1000) : 0;
  return summary;
}

function saveReproducer(
  dir: string,
  failure: FuzzFailure,
  reduced: Uint8Array,
  original: Uint8Array | undefined,
  wasmOpt: string | undefined,
): string {
  mkdirSync(dir, { recursive: true });
  const base = `${failure.variant}-${failure.seed}`;
  const file = join(dir, `${base}.wasm`);
  writeFileAtomic(file, reduced);
  writeFileAtomic(
    join(dir, `${base}.json`),
    JSON.stringify(
      {
        schema: 'taintlens/fuzz-reproducer@1',
        variant: failure.variant,
        modes: failure.variant.split('+'),
        seed: failure.seed,
        source: failure.source,
        ...(failure.source === 'ttf' && wasmOpt ? { wasmOpt } : {}),
        outcome: failure.outcome,
        originalBytes: original?.length,
        reducedBytes: reduced.length,
        reproduce: `npm run fuzz -- --source ${/^(ttf|gen)$/.test(failure.source) ? failure.source : 'mixed'} --seed ${failure.seed} --count 1`,
        status: 'open',
      },
      null,
      2,
    ) + '\n',
  );
  return file;
}

export function formatSummary(summary: FuzzSummary): string {
  const lines = [
    `fuzz: ${summary.modules} modules × ${summary.variants.length} variants (${summary.variants.join(', ')}) = ${summary.checks} checks; ` +
      `${summary.failures.length} failures; seed ${summary.seed}, source ${summary.source}`,
    ...(summary.wasmOpt ? [`  ttf modules from ${summary.wasmOpt.version} (${summary.wasmOpt.path})`] : []),
    `  ${summary.cases} cases in ${(summary.elapsedMs / 1000).toFixed(1)} s (${(summary.msPer1000Modules / 1000).toFixed(1)} s per 1000)`,
  ];
  for (const [name, counts] of Object.entries(summary.perVariant)) {
    lines.push(
      `  ${name}: ${
        Object.entries(counts)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ') || 'nothing run'
      }`,
    );
  }
  for (const [reason, n] of Object.entries(summary.skipped)) lines.push(`  skipped ${n}: ${reason}`);
  for (const [reason, n] of Object.entries(summary.unsupported)) lines.push(`  unsupported ${n}: ${reason}`);
  if (summary.nondeterministic.length)
    lines.push(`  nondeterministic originals (not compared): seeds ${summary.nondeterministic.join(', ')}`);
  if (summary.timeouts.length) lines.push(`  TIMEOUTS: seeds ${summary.timeouts.join(', ')}`);
  for (const error of summary.errors) lines.push(`  ERROR seed ${error.seed}: ${error.message.split('\n')[0]}`);
  for (const failure of summary.failures) {
    const what =
      failure.outcome.status === 'mismatch'
        ? failure.outcome.difference.detail
        : failure.outcome.status === 'crash'
          ? failure.outcome.message
          : '';
    lines.push(
      `  ${failure.outcome.status.toUpperCase()} ${failure.variant} seed ${failure.seed} (${failure.source}): ${what}${failure.file ? ` → ${failure.file}` : ''}`,
    );
  }
  return lines.join('\n');
}
