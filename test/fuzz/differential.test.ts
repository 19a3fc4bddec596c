// The CI share of differential fuzzing (no wasm-opt run needed): a sample of the committed corpus
// of Binaryen `-ttf` modules, modules from our own generator, and the bundled AssemblyScript
// kernels with their documented arguments — each run original vs. instrumented under every
// registered mode, comparing results, traps, host calls, globals and memory. Sized to take seconds:
// the campaign proper is `npm run fuzz -- --count 1000 --seed 7` (docs/fuzz.md). Any mismatch fails
// with its seed and the command that reproduces it (`npm run fuzz -- --source ... --seed S --count 1`).
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { formatSummary, runFuzz, type FuzzSummary } from '../../src/fuzz/run.js';
import { checkModule, defaultVariants, isFailure } from '../../src/fuzz/differential.js';
import { corpusCases } from '../../src/fuzz/sources.js';
import { availableModes } from '../../instrument/pipeline.js';
import { KERNELS } from '../expectations/kernels.js';

const root = join(import.meta.dirname, '..', '..');
const corpus = join(import.meta.dirname, 'corpus');
const variants = defaultVariants().filter((v) => v.modes.length === 1);
const CORPUS_SAMPLE = 40;
const GENERATED = 16;

/**
 * Failures already saved as reproducers with "status": "open" (reported, not fixed yet): the same
 * variant and seed failing again is expected; anything else fails the test.
 */
const regressions = join(import.meta.dirname, 'regressions');
const knownOpen = new Set(
  readdirSync(regressions)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      const note = JSON.parse(readFileSync(join(regressions, f), 'utf8')) as {
        variant: string;
        seed: number;
        status: string;
        openVariants?: string[];
      };
      return note.status === 'open' ? (note.openVariants ?? [note.variant]).map((v) => `${v}:${note.seed}`) : [];
    }),
);

function expectClean(summary: FuzzSummary) {
  const report = formatSummary(summary);
  const known = summary.failures.filter((f) => knownOpen.has(`${f.variant}:${f.seed}`));
  if (known.length)
    console.warn(
      `known open fuzz failures (see test/fuzz/regressions): ${known.map((f) => `${f.variant}:${f.seed}`).join(', ')}`,
    );
  expect(
    summary.failures.filter((f) => !known.includes(f)),
    report,
  ).toEqual([]);
  expect(summary.errors, report).toEqual([]);
  expect(summary.timeouts, report).toEqual([]);
}

describe('differential fuzzing (CI share)', () => {
  test('every registered mode is fuzzed on its own', () => {
    const alone = variants.filter((v) => v.modes.length === 1 && v.name === v.modes[0]);
    expect(alone.map((v) => v.name)).toEqual(availableModes());
  });

  // In this process: a worker pool's start-up (Binaryen and our sources, per worker) would cost
  // more than the sample; the pool itself is covered by the generator's share below.
  const sample = corpusCases(corpus)
    .filter((_, i) => i % 2 === 0)
    .slice(0, CORPUS_SAMPLE);
  test(`${CORPUS_SAMPLE} modules of the committed wasm-opt -ttf corpus (every other one)`, () => {
    expect(sample.length).toBe(CORPUS_SAMPLE);
    const failures: string[] = [];
    let compared = 0;
    for (const c of sample) {
      const report = checkModule(c.bytes!, c.seed, c.source, variants);
      expect(report.skipped, c.source).toBeUndefined();
      if (report.nondeterministic) continue;
      compared++;
      for (const [mode, outcome] of Object.entries(report.variants)) {
        if (isFailure(outcome) && !knownOpen.has(`${mode}:${c.seed}`))
          failures.push(`${c.source} under ${mode}: ${JSON.stringify(outcome)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(CORPUS_SAMPLE - 2);
  }, 180_000);

  test(`${GENERATED} modules from our own generator, on the campaign's worker pool`, async () => {
    const summary = await runFuzz({
      count: GENERATED,
      seed: 900_000,
      source: 'gen',
      variants,
      workers: 2,
      shrinkMs: 0,
      saveDir: null,
      caseTimeoutMs: 60_000,
    });
    expectClean(summary);
    expect(summary.modules).toBe(GENERATED);
    expect(summary.checks).toBe(summary.modules * variants.length);
  }, 180_000);

  const assemblyScript = KERNELS.filter(
    (k) => k.kind === 'assemblyscript' && k.file.startsWith('build/kernels/') && !k.name.includes('.'),
  );
  test.each(assemblyScript.map((k) => [k.name, k] as const))(
    'bundled kernel %s, with its documented arguments',
    (_, kernel) => {
      const calls: string[] = [];
      const host = {
        env: {
          abort: (...args: unknown[]) => {
            calls.push(`abort ${args.join(' ')}`);
            throw new WebAssembly.RuntimeError('abort');
          },
        },
        taintlens: {
          register_variable: (...args: unknown[]) => void calls.push(`register_variable ${args.join(' ')}`),
        },
      };
      const plan = { calls: [{ name: kernel.export, args: [...kernel.args] }], resetHangLimit: false };
      const report = checkModule(new Uint8Array(readFileSync(join(root, kernel.file))), 0, kernel.file, variants, {
        plan,
        host,
      });
      expect(report.skipped).toBeUndefined();
      expect(report.nondeterministic).toBeUndefined();
      for (const [mode, outcome] of Object.entries(report.variants))
        expect(outcome, `${kernel.name} under ${mode}`).toEqual({ status: 'agree' });
      expect(
        calls.some((c) => c.startsWith('register_variable')),
        'the kernel marks its parameters',
      ).toBe(true);
    },
    60_000,
  );
});
