// SPMD AssemblyScript kernel (taintlens_mp, run with --ranks P): a block-distributed series sum.
// Rank r of P sums f(i) over its block of [0, n) for `rounds` rounds, the ranks add their partial
// sums with allreduce, and rank 0's count of rounds is broadcast first (a parameter read on one
// rank reaches all). Integer arithmetic, combined exactly: every P gives the single-rank result.
import { param } from "../taintlens";
import * as mp from "../taintlens_mp";

function blockStart(n: i32, ranks: i32, r: i32): i32 {
  const base = n / ranks;
  const extra = n % ranks;
  return r * base + (r < extra ? r : extra);
}

function partialSum(first: i32, last: i32, round: i32): i64 {
  let sum: i64 = 0;
  for (let i = first; i < last; i++) {
    sum += <i64>((i * 2654435761 + round) >>> 7) & 0xffff;
  }
  return sum;
}

export function run(n: i32, rounds: i32): i64 {
  n = param<i32>(n, "n");
  const r = mp.rank();
  const p = mp.size();
  rounds = mp.bcastValue<i32>(rounds, 0);
  const first = blockStart(n, p, r);
  const last = blockStart(n, p, r + 1);
  let total: i64 = 0;
  for (let k = 0; k < rounds; k++) {
    total += mp.allreduceValue<i64>(partialSum(first, last, k), mp.SUM);
  }
  return total;
}
