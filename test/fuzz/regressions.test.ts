// Every mismatch the fuzzer found stays found: saved reproducers (test/fuzz/regressions/<variant>-<seed>.wasm
// with a JSON note) run under every mode, plus minimal hand-written versions of the bugs fixed so far.
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { checkModule, checkVariant, defaultVariants, type VariantOutcome } from '../../src/fuzz/differential.js';
import { makePlan, observe, type CallPlan, type Observation } from '../../src/fuzz/harness.js';
import { readExports } from '../../instrument/exports.js';

const dir = join(import.meta.dirname, 'regressions');
const singleModes = defaultVariants().filter((v) => v.modes.length === 1);

interface Note {
  variant: string;
  seed: number;
  source: string;
  status: 'open' | 'fixed';
  cause?: string;
  openVariants?: string[];
}

const notes = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => {
    const note = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Note;
    return {
      name: file.replace(/\.json$/, ''),
      note,
      bytes: new Uint8Array(readFileSync(join(dir, file.replace(/\.json$/, '.wasm')))),
    };
  });

const explain = (outcome: VariantOutcome | undefined) =>
  outcome?.status === 'mismatch'
    ? outcome.difference.detail
    : outcome?.status === 'crash'
      ? outcome.message
      : outcome?.status;

describe.each(notes)('reproducer $name', ({ note, bytes }) => {
  // The original runs once for every mode (loops-3617 grows its memory past 1 GiB: seconds a run).
  let original: { plan: CallPlan; reference: Observation } | undefined;
  const originalRun = () => {
    if (!original) {
      const plan = makePlan(readExports(bytes, `${note.source}-${note.seed}.wasm`), note.seed);
      original = { plan, reference: observe(new WebAssembly.Module(bytes), plan) };
    }
    return original;
  };

  test.each(singleModes.map((v) => [v.name, v] as const))(
    '%s: instrumented runs like the original',
    (name, variant) => {
      if (note.status === 'open' && (note.openVariants ?? [note.variant]).includes(name)) {
        // A known, reported failure (see the note's cause): nothing to assert until it is fixed.
        return;
      }
      const { plan, reference } = originalRun();
      const outcome = checkVariant(bytes, note.seed, variant, plan, reference, reference.memory?.length);
      expect(['agree', 'unsupported', 'stack-overflow'], explain(outcome)).toContain(outcome.status);
    },
  );
});

describe('bounds checks keep the order of effects', () => {
  // Found as gen seed 9: an out-of-bounds store whose value operand logs must log before it traps.
  const storeAfterValue = wat(`(module
    (import "fuzzing-support" "log-i32" (func $log (param i32)))
    (memory (export "memory") 1 2)
    (global $g (export "g") (mut i32) (i32.const 0))
    (func (export "store") (param $p i32)
      (i32.store (local.get $p) (block (result i32) (call $log (i32.const 7)) (global.set $g (i32.const 9)) (i32.const 42))))
    (func (export "store_then_trap") (param $p i32)
      (i64.store (local.get $p) (block (result i64) (call $log (i32.const 8)) (i64.div_s (i64.const 1) (i64.const 0)))))
    (func (export "lane") (param $p i32)
      (v128.store32_lane 1 (local.get $p) (block (result v128) (call $log (i32.const 3)) (v128.const i32x4 1 2 3 4)))))`);

  test.each(singleModes.map((v) => [v.name, v] as const))('%s', (name, variant) => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const outcome = checkModule(storeAfterValue, seed, 'wat', [variant]).variants[name];
      expect(outcome?.status, explain(outcome)).toBe('agree');
    }
  });

  // Found as ttf seed 34: an access with an unreachable operand must not make the module invalid.
  const unreachableOperands = wat(`(module
    (memory (export "memory") 1)
    (func (export "f") (param $x i32) (result i32) (local $y i32)
      (if (local.get $x) (then (return (i32.const 1))))
      (drop (i32.load offset=22 (i32.and (local.tee $y (unreachable)) (i32.const 15))))
      (i32.store (unreachable) (i32.const 1))
      (i32.store (i32.const 0) (unreachable))
      (memory.fill (i32.const 0) (unreachable) (i32.const 4))
      (i32.const 0)))`);

  test.each(singleModes.map((v) => [v.name, v] as const))('%s: unreachable operands', (name, variant) => {
    const outcome = checkModule(unreachableOperands, 1, 'wat', [variant]).variants[name];
    expect(['agree', 'unsupported'], explain(outcome)).toContain(outcome?.status);
  });
});
