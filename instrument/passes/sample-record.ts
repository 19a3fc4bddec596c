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
// A record repeating the previous one's node, allocation-log length and stack pointer (a loop
// nest's samples, nearly all of them) is written short (SHORT_RECORD in layouts.ts): fewer fresh
// pages touched per run (docs/blame.md "Twelfth session (the `samplepages` branch)").
import binaryen from 'binaryen';
import { MAX_ADDRESSES, SAMPLE_RECORD, SHORT_RECORD, sampleRecordBytes } from '../layouts.js';
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
  /** Write a sample repeating the previous record's context short (SHORT_RECORD); false: every record full. */
  shortRecords: boolean;
}

/** What the last record written held: a sample repeating its node, allocations and stack pointer is written short. */
const PREVIOUS = {
  node: 'taintlens$sprevnode',
  allocs: 'taintlens$sprevallocs',
  stack: 'taintlens$sprevstack',
  region: 'taintlens$sprevregion',
};

/** Makes each `taintlens$srecordN` on first use. */
export class RecordFunctions {
  private readonly made = new Set<number>();
  constructor(
    private readonly module: binaryen.Module,
    private readonly names: RecordGlobals,
    private readonly path: RecordPath,
  ) {
    // No node is -1, so the first record is a full one.
    if (path.shortRecords)
      for (const name of Object.values(PREVIOUS)) module.addGlobal(name, binaryen.i32, true, module.i32.const(-1));
  }

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
    const [CUR, SAME_REGION] = [FIRST + n, FIRST + n + 1];
    const get = (k: number) => module.local.get(k, i32);
    const cur = () => get(CUR);
    const global = (name: string) => module.global.get(name, i32);
    const setGlobal = (name: string, value: Expr) => module.global.set(name, value);
    const store = (offset: number, value: Expr, at: Expr = cur()) => module.i32.store(offset, 4, at, value);
    const bytes = sampleRecordBytes(n);
    // A short record is never longer: a full one's room is what every sample asks for.
    const full = () => module.i32.gt_u(module.i32.add(cur(), module.i32.const(bytes)), module.i32.const(path.end));
    const seed = () => global(names.seed);
    const stack = () => (path.stackPointer ? global(path.stackPointer) : module.i32.const(0));
    const sameContext = () =>
      module.i32.and(
        module.i32.and(
          module.i32.eq(get(NODE), global(PREVIOUS.node)),
          module.i32.eq(global(names.allocCursor), global(PREVIOUS.allocs)),
        ),
        module.i32.and(
          path.stackPointer ? module.i32.eq(stack(), global(PREVIOUS.stack)) : module.i32.const(1),
          // The countdown in [-2^30, -1], so its first word's top bits are 11 (10 with the flag cleared).
          module.i32.lt_u(
            module.i32.add(get(COUNTDOWN), module.i32.const(SHORT_RECORD.regionFlag)),
            module.i32.const(SHORT_RECORD.regionFlag),
          ),
        ),
      );
    const fullRecord = [
      store(SAMPLE_RECORD.region, get(REGION)),
      store(SAMPLE_RECORD.node, get(NODE)),
      store(SAMPLE_RECORD.allocs, global(names.allocCursor)),
      store(SAMPLE_RECORD.stack, stack()),
      store(SAMPLE_RECORD.countdown, get(COUNTDOWN)),
      ...Array.from({ length: n }, (_, k) => store(SAMPLE_RECORD.addresses + 4 * k, get(FIRST + k))),
      module.global.set(names.cursor, module.i32.add(cur(), module.i32.const(bytes))),
      ...(path.shortRecords
        ? [
            setGlobal(PREVIOUS.node, get(NODE)),
            setGlobal(PREVIOUS.allocs, global(names.allocCursor)),
            ...(path.stackPointer ? [setGlobal(PREVIOUS.stack, stack())] : []),
          ]
        : []),
    ];
    // Branch-free: the region is written after the countdown either way and overwritten by the
    // first address when it is the previous record's (the room of a full record is there).
    const addressesAt = () =>
      module.i32.sub(
        module.i32.add(cur(), module.i32.const(SHORT_RECORD.newRegionBytes)),
        module.i32.shl(get(SAME_REGION), module.i32.const(2)),
      );
    const shortRecord = () => [
      module.local.set(SAME_REGION, module.i32.eq(get(REGION), global(PREVIOUS.region))),
      store(
        0,
        module.select(
          get(SAME_REGION),
          get(COUNTDOWN),
          module.i32.xor(get(COUNTDOWN), module.i32.const(SHORT_RECORD.regionFlag)),
        ),
      ),
      store(4, get(REGION)),
      module.local.set(CUR, addressesAt()),
      ...Array.from({ length: n }, (_, k) => store(4 * k, get(FIRST + k))),
      module.global.set(names.cursor, module.i32.add(cur(), module.i32.const(4 * n))),
    ];
    module.addFunction(
      name,
      binaryen.createType(Array.from({ length: FIRST + n }, () => i32)),
      i32,
      path.shortRecords ? [i32, i32] : [i32],
      module.block(
        null,
        [
          module.local.set(CUR, global(names.cursor)),
          // A full buffer (once per buffer's worth of samples): the host empties it, or nothing is written.
          module.if(
            full(),
            module.block(null, [
              module.call(names.drain, [], binaryen.none),
              module.local.set(CUR, global(names.cursor)),
            ]),
          ),
          module.if(
            full(),
            setGlobal(names.dropped, module.i32.add(global(names.dropped), module.i32.const(1))),
            path.shortRecords
              ? module.block(null, [
                  module.if(sameContext(), module.block(null, shortRecord()), module.block(null, fullRecord)),
                  setGlobal(PREVIOUS.region, get(REGION)),
                ])
              : module.block(null, fullRecord),
          ),
          setGlobal(
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
