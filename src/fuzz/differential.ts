// The differential check: run a module and each instrumented variant of it on the same inputs and
// compare everything observable. A mismatch means the instrumentation changed what the program computes.
import { availableModes, instrumentModule, type InstrumentOptions } from '../../instrument/pipeline.js';
import { readExports } from '../../instrument/exports.js';
import { makePlan, observe, UnsatisfiableImport, type CallPlan, type Observation } from './harness.js';
import type { HostImports } from './fuzzing-support.js';
import { compareObservations, type Difference } from './compare.js';

/** One instrumentation configuration under test: a mode, or several applied together. */
export interface Variant {
  name: string;
  modes: string[];
  options?: InstrumentOptions;
}

/**
 * Every registered mode on its own, the taint pass's unoptimized pipeline for functions that ran
 * little (every function cold), and all modes together when there are several.
 */
export function defaultVariants(): Variant[] {
  const modes = availableModes();
  const variants: Variant[] = modes.map((mode) => ({ name: mode, modes: [mode] }));
  if (modes.includes('taint'))
    variants.push({ name: 'taint-cold', modes: ['taint'], options: { taint: { cold: 'all' } } });
  if (modes.length > 1) variants.push({ name: modes.join('+'), modes });
  return variants;
}

export type VariantOutcome =
  | { status: 'agree' }
  /** Both ran out of stack at engine-dependent depths: not comparable. */
  | { status: 'stack-overflow' }
  /** The mode declines this module with a clear message (e.g. imported memory): not a mismatch. */
  | { status: 'unsupported'; message: string }
  /** The instrumentation threw something other than a clear refusal: a bug. */
  | { status: 'crash'; message: string }
  | { status: 'mismatch'; difference: Difference };

export interface CaseReport {
  seed: number;
  source: string;
  /** Why the module was not tested at all (Node rejects it, an import we cannot provide). */
  skipped?: string;
  /** The original is not deterministic (two runs differ): not usable. */
  nondeterministic?: string;
  variants: Record<string, VariantOutcome>;
}

const REFUSAL =
  /does not handle it yet|cannot be instrumented in this mode yet|leaves no room for instrumentation data/;

export function isFailure(outcome: VariantOutcome): boolean {
  return outcome.status === 'mismatch' || outcome.status === 'crash';
}

/** A module that is not a generated one: the calls to make (instead of seeded ones) and its imports. */
export interface CheckOptions {
  plan?: CallPlan;
  host?: HostImports;
}

export function checkModule(
  bytes: Uint8Array,
  seed: number,
  source: string,
  variants: Variant[],
  options: CheckOptions = {},
): CaseReport {
  const report: CaseReport = { seed, source, variants: {} };
  const host = options.host;
  let original: WebAssembly.Module;
  let plan: CallPlan;
  try {
    original = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
    plan = options.plan ?? makePlan(readExports(bytes, `seed-${seed}.wasm`), seed);
  } catch (error) {
    report.skipped = `not runnable: ${(error as Error).message.split('\n')[0]}`;
    return report;
  }
  let reference: Observation;
  try {
    reference = observe(original, plan, { host });
  } catch (error) {
    if (error instanceof UnsatisfiableImport) {
      report.skipped = error.message;
      return report;
    }
    throw error;
  }
  const programBytes = reference.memory?.length;
  let confirmed = false;
  for (const variant of variants) {
    report.variants[variant.name] = checkVariant(bytes, seed, variant, plan, reference, programBytes, host);
    if (report.variants[variant.name]!.status === 'mismatch' && !confirmed) {
      // Before blaming the instrumentation, make sure the original repeats itself.
      confirmed = true;
      const again = compareObservations(reference, observe(original, plan, { host }));
      if (again) {
        report.nondeterministic = `${again.aspect}: ${again.detail}`;
        report.variants = {};
        return report;
      }
    }
  }
  return report;
}

export function checkVariant(
  bytes: Uint8Array,
  seed: number,
  variant: Variant,
  plan: CallPlan,
  reference: Observation,
  programBytes: number | undefined,
  host?: HostImports,
): VariantOutcome {
  let instrumented: Uint8Array;
  let programBase = 0;
  try {
    const result = instrumentModule(bytes, `seed-${seed}.wasm`, variant.modes, variant.options ?? {});
    instrumented = result.bytes;
    programBase = (result.sites.layout as { programBase?: number } | null)?.programBase ?? 0;
  } catch (error) {
    const message = (error as Error).message?.split('\n')[0] ?? String(error);
    return REFUSAL.test(message) ? { status: 'unsupported', message } : { status: 'crash', message };
  }
  let observed: Observation;
  try {
    observed = observe(new WebAssembly.Module(instrumented as Uint8Array<ArrayBuffer>), plan, {
      programBytes,
      programBase,
      host,
    });
  } catch (error) {
    return { status: 'crash', message: `instrumented module cannot run: ${(error as Error).message}` };
  }
  if (reference.stackOverflow || observed.stackOverflow) return { status: 'stack-overflow' };
  if (observed.outOfRoom)
    return {
      status: 'unsupported',
      message: 'the program outgrew the memory instrumentation leaves it (the run stops, as documented)',
    };
  const difference = compareObservations(reference, observed);
  return difference ? { status: 'mismatch', difference } : { status: 'agree' };
}

/** Re-runs one variant on a module: true while the same kind of failure persists (for shrinking). */
export function stillFails(bytes: Uint8Array, seed: number, variant: Variant, expected: VariantOutcome): boolean {
  let original: WebAssembly.Module;
  let plan: CallPlan;
  let reference: Observation;
  try {
    original = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
    plan = makePlan(readExports(bytes, `seed-${seed}.wasm`), seed);
    reference = observe(original, plan);
  } catch {
    return false;
  }
  const outcome = checkVariant(bytes, seed, variant, plan, reference, reference.memory?.length);
  if (outcome.status !== expected.status) return false;
  if (outcome.status === 'mismatch' && expected.status === 'mismatch')
    return outcome.difference.signature === expected.difference.signature;
  if (outcome.status === 'crash' && expected.status === 'crash')
    return messageShape(outcome.message) === messageShape(expected.message);
  return true;
}

function messageShape(message: string): string {
  return message.replace(/seed-\d+\.wasm/g, '').replace(/\d+/g, 'N');
}
