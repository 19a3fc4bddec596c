// Taintlens message passing for SPMD AssemblyScript kernels (`taintlens run --ranks P`): the
// `taintlens_mp` host imports (src/runtime/spmd/, same semantics as native/include/taintlens_mp.h)
// with typed helpers over StaticArrays. Sizes passed to the host are in bytes; messages between two
// ranks arrive in the order sent, tags must match (ANY_TAG accepts any); collectives combine in
// rank order. For the taint analysis, size() is the source of the parameter `p`.

export const I32: i32 = 0;
export const I64: i32 = 1;
export const F32: i32 = 2;
export const F64: i32 = 3;
export const SUM: i32 = 0;
export const MAX: i32 = 1;
export const MIN: i32 = 2;
export const PROD: i32 = 3;
export const ANY_TAG: i32 = -1;

// @ts-ignore: decorator
@external("taintlens_mp", "rank") export declare function rank(): i32;
// @ts-ignore: decorator
@external("taintlens_mp", "size") export declare function size(): i32;
// @ts-ignore: decorator
@external("taintlens_mp", "send") export declare function send(buf: usize, bytes: i32, dest: i32, tag: i32): void;
// @ts-ignore: decorator
@external("taintlens_mp", "recv") export declare function recv(buf: usize, bytes: i32, source: i32, tag: i32): i32;
// @ts-ignore: decorator
@external("taintlens_mp", "sendrecv")
export declare function sendrecv(out: usize, outBytes: i32, dest: i32, sendTag: i32, into: usize, intoBytes: i32, source: i32, recvTag: i32): i32;
// @ts-ignore: decorator
@external("taintlens_mp", "bcast") export declare function bcast(buf: usize, bytes: i32, root: i32): void;
// @ts-ignore: decorator
@external("taintlens_mp", "reduce") export declare function reduce(input: usize, output: usize, count: i32, datatype: i32, op: i32, root: i32): void;
// @ts-ignore: decorator
@external("taintlens_mp", "allreduce") export declare function allreduce(input: usize, output: usize, count: i32, datatype: i32, op: i32): void;
// @ts-ignore: decorator
@external("taintlens_mp", "barrier") export declare function barrier(): void;
// @ts-ignore: decorator
@external("taintlens_mp", "wtime") export declare function wtime(): f64;

/** The element type code of T for reductions. */
function datatypeOf<T>(): i32 {
  if (isFloat<T>()) return sizeof<T>() == 8 ? F64 : F32;
  return sizeof<T>() == 8 ? I64 : I32;
}

/** Sends the first `count` elements of `data` (all by default). */
export function sendArray<T>(data: StaticArray<T>, dest: i32, tag: i32, count: i32 = -1): void {
  const n = count < 0 ? data.length : count;
  send(changetype<usize>(data), n * <i32>sizeof<T>(), dest, tag);
}

/** Receives into `into`; returns the number of elements received. */
export function recvArray<T>(into: StaticArray<T>, source: i32, tag: i32): i32 {
  return recv(changetype<usize>(into), into.length * <i32>sizeof<T>(), source, tag) / <i32>sizeof<T>();
}

/** One value combined over all ranks with `op` (SUM, MAX, MIN, PROD). */
export function allreduceValue<T>(value: T, op: i32): T {
  const box = new StaticArray<T>(2);
  box[0] = value;
  allreduce(changetype<usize>(box), changetype<usize>(box) + sizeof<T>(), 1, datatypeOf<T>(), op);
  return box[1];
}

/** `value` as rank `root` has it, on every rank. */
export function bcastValue<T>(value: T, root: i32): T {
  const box = new StaticArray<T>(1);
  box[0] = value;
  bcast(changetype<usize>(box), <i32>sizeof<T>(), root);
  return box[0];
}
