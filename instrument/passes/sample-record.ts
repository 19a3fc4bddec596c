// The sampling pass's rare path, out of line (issue 27): a due sample calls one shared function per
// number of recorded addresses, `taintlens$srecordN(countdown, region, node, a1..aN) → countdown`,
// which appends the record (emptying a full buffer through the host first, or counting the sample
// as dropped), steps the seed and returns the rearmed countdown. The checked region keeps only the
// compare, the node lookup, the address expressions and this call. With the whole path inline, the
// mere presence of its stores, temporaries and the drain call made TurboFan compile the checked
// function worse even when no sample was ever taken (docs/blame.md "Measured": trmm -O0 1.24× →
// 1.11× and elements -O0 1.14× → 1.09× at a period no run reaches). The same records, seeds and
// countdowns as the inline path; only a dropped sample (no host to empty the buffer) now evaluates
// its node and addresses too (pure: guarded loads, no trap).
import binaryen from 'binaryen';
import { MAX_ADDRESSES, SAMPLE_RECORD, sampleRecordBytes } from '../layouts.js';
import type { Expr } from '../ir.js';

export interface RecordGlobals {
  cursor: string;
  dropped: string;
  allocCursor: string;
  seed: string;
  drain: string;
}

export interface RecordPath {
  period: number;
  /** End of the sample buffer. */
  end: number;
  stackPointer: string | null;
}

/** Makes each `taintlens$srecordN` on first use. */
export class RecordFunctions {
  private readonly made = new Set<number>();
  constructor(
    private readonly module: binaryen.Module,
    private readonly names: RecordGlobals,
    private readonly path: RecordPath,
  ) {}

  /** The call taking a sample: its value is the rearmed countdown. */
  call(countdown: Expr, region: number, node: Expr, addresses: Expr[]): Expr {
    const n = Math.min(addresses.length, MAX_ADDRESSES);
    const name = `taintlens$srecord${n}`;
    if (!this.made.has(n)) {
      this.made.add(n);
      this.add(name, n);
    }
    const { module } = this;
    return module.call(name, [countdown, module.i32.const(region), node, ...addresses.slice(0, n)], binaryen.i32);
  }

  private add(name: string, n: number): void {
    const { module, names, path } = this;
    const i32 = binaryen.i32;
    const [COUNTDOWN, REGION, NODE, FIRST] = [0, 1, 2, 3];
    const CUR = FIRST + n;
    const get = (k: number) => module.local.get(k, i32);
    const cur = () => get(CUR);
    const store = (offset: number, value: Expr) => module.i32.store(offset, 4, cur(), value);
    const bytes = sampleRecordBytes(n);
    const full = () => module.i32.gt_u(module.i32.add(cur(), module.i32.const(bytes)), module.i32.const(path.end));
    const seed = () => module.global.get(names.seed, i32);
    const record = [
      store(SAMPLE_RECORD.region, get(REGION)),
      store(SAMPLE_RECORD.node, get(NODE)),
      store(SAMPLE_RECORD.allocs, module.global.get(names.allocCursor, i32)),
      store(SAMPLE_RECORD.stack, path.stackPointer ? module.global.get(path.stackPointer, i32) : module.i32.const(0)),
      store(SAMPLE_RECORD.countdown, get(COUNTDOWN)),
      ...Array.from({ length: n }, (_, k) => store(SAMPLE_RECORD.addresses + 4 * k, get(FIRST + k))),
      module.global.set(names.cursor, module.i32.add(cur(), module.i32.const(bytes))),
    ];
    module.addFunction(
      name,
      binaryen.createType(Array.from({ length: FIRST + n }, () => i32)),
      i32,
      [i32],
      module.block(
        null,
        [
          module.local.set(CUR, module.global.get(names.cursor, i32)),
          // A full buffer (once per buffer's worth of samples): the host empties it, or nothing is written.
          module.if(
            full(),
            module.block(null, [
              module.call(names.drain, [], binaryen.none),
              module.local.set(CUR, module.global.get(names.cursor, i32)),
            ]),
          ),
          module.if(
            full(),
            module.global.set(
              names.dropped,
              module.i32.add(module.global.get(names.dropped, i32), module.i32.const(1)),
            ),
            module.block(null, record),
          ),
          module.global.set(
            names.seed,
            module.i32.add(module.i32.mul(seed(), module.i32.const(1664525)), module.i32.const(1013904223)),
          ),
          // Next sample after period/2 + [0, period) instructions: mean `period`, no aliasing with loop lengths.
          module.i32.add(
            get(COUNTDOWN),
            module.i32.add(
              module.i32.const(path.period >>> 1),
              module.i32.rem_u(module.i32.shr_u(seed(), module.i32.const(8)), module.i32.const(path.period)),
            ),
          ),
        ],
        i32,
      ),
    );
  }
}
