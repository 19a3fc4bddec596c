// MPI datatypes and reduction operators of native/include/mpi.h: the predefined C types (sizes as
// on wasm32: long is 4 bytes, long double 16), the value-index pair types of MINLOC/MAXLOC, and
// derived types (contiguous, vector) as a list of byte segments within an extent, so a message of
// a derived type is packed and unpacked segment by segment. Handles are numbered as in mpi.h.
import { CommunicationError } from './communicator.js';

type Scalar = 'i8' | 'u8' | 'i16' | 'u16' | 'i32' | 'u32' | 'i64' | 'u64' | 'f32' | 'f64' | 'f128';

interface Predefined {
  name: string;
  /** The element's C type; pairs are (value, int index) with the index at `indexOffset`. */
  scalar: Scalar;
  bytes: number;
  indexOffset?: number;
  /** MPI_BYTE and MPI_PACKED take the bitwise operators only. */
  bytesOnly?: boolean;
}

const SCALAR_BYTES: Record<Scalar, number> = {
  i8: 1,
  u8: 1,
  i16: 2,
  u16: 2,
  i32: 4,
  u32: 4,
  i64: 8,
  u64: 8,
  f32: 4,
  f64: 8,
  f128: 16,
};

const scalar = (name: string, type: Scalar): Predefined => ({ name, scalar: type, bytes: SCALAR_BYTES[type] });
const pair = (name: string, type: Scalar, indexOffset: number, bytes: number): Predefined => ({
  name,
  scalar: type,
  bytes,
  indexOffset,
});

/** Predefined datatypes by handle (native/include/mpi.h). */
const PREDEFINED: ReadonlyMap<number, Predefined> = new Map([
  [1, scalar('MPI_CHAR', 'i8')],
  [2, scalar('MPI_SIGNED_CHAR', 'i8')],
  [3, scalar('MPI_UNSIGNED_CHAR', 'u8')],
  [4, { ...scalar('MPI_BYTE', 'u8'), bytesOnly: true }],
  [5, scalar('MPI_SHORT', 'i16')],
  [6, scalar('MPI_UNSIGNED_SHORT', 'u16')],
  [7, scalar('MPI_INT', 'i32')],
  [8, scalar('MPI_UNSIGNED', 'u32')],
  [9, scalar('MPI_LONG', 'i32')],
  [10, scalar('MPI_UNSIGNED_LONG', 'u32')],
  [11, scalar('MPI_LONG_LONG', 'i64')],
  [12, scalar('MPI_UNSIGNED_LONG_LONG', 'u64')],
  [13, scalar('MPI_FLOAT', 'f32')],
  [14, scalar('MPI_DOUBLE', 'f64')],
  [15, scalar('MPI_LONG_DOUBLE', 'f128')],
  [16, scalar('MPI_C_BOOL', 'u8')],
  [17, scalar('MPI_INT8_T', 'i8')],
  [18, scalar('MPI_INT16_T', 'i16')],
  [19, scalar('MPI_INT32_T', 'i32')],
  [20, scalar('MPI_INT64_T', 'i64')],
  [21, scalar('MPI_UINT8_T', 'u8')],
  [22, scalar('MPI_UINT16_T', 'u16')],
  [23, scalar('MPI_UINT32_T', 'u32')],
  [24, scalar('MPI_UINT64_T', 'u64')],
  [25, scalar('MPI_WCHAR', 'i32')],
  [26, { ...scalar('MPI_PACKED', 'u8'), bytesOnly: true }],
  [30, pair('MPI_FLOAT_INT', 'f32', 4, 8)],
  [31, pair('MPI_DOUBLE_INT', 'f64', 8, 16)],
  [32, pair('MPI_LONG_INT', 'i32', 4, 8)],
  [33, pair('MPI_2INT', 'i32', 4, 8)],
  [34, pair('MPI_SHORT_INT', 'i16', 4, 8)],
  [35, pair('MPI_LONG_DOUBLE_INT', 'f128', 16, 32)],
]);

/** Reduction operators by handle (native/include/mpi.h). */
export const OPERATOR_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'MPI_MAX'],
  [2, 'MPI_MIN'],
  [3, 'MPI_SUM'],
  [4, 'MPI_PROD'],
  [5, 'MPI_LAND'],
  [6, 'MPI_BAND'],
  [7, 'MPI_LOR'],
  [8, 'MPI_BOR'],
  [9, 'MPI_LXOR'],
  [10, 'MPI_BXOR'],
  [11, 'MPI_MINLOC'],
  [12, 'MPI_MAXLOC'],
]);

const FIRST_DERIVED = 64;

/** A datatype's layout: `size` bytes of data in `segments` (offset, length) within `extent` bytes. */
export interface TypeLayout {
  name: string;
  size: number;
  extent: number;
  segments: ReadonlyArray<readonly [number, number]>;
  /** The predefined type every element is made of (reductions need it). */
  base: number;
}

/** One rank's datatypes: the predefined ones and those the program derived. */
export class Datatypes {
  private readonly derived = new Map<number, TypeLayout & { committed: boolean }>();
  private next = FIRST_DERIVED;

  layout(handle: number): TypeLayout {
    const predefined = PREDEFINED.get(handle);
    if (predefined)
      return {
        name: predefined.name,
        size: predefined.bytes,
        extent: predefined.bytes,
        segments: [[0, predefined.bytes]],
        base: handle,
      };
    const derived = this.derived.get(handle);
    if (!derived) throw new CommunicationError(`unknown MPI datatype handle ${handle}`);
    if (!derived.committed) throw new CommunicationError(`${derived.name} is used before MPI_Type_commit`);
    return derived;
  }

  /** MPI_Type_vector (MPI_Type_contiguous is a vector of one block): `count` blocks of `blockLength` elements, `stride` elements apart. */
  vector(count: number, blockLength: number, stride: number, old: number, name: string): number {
    if (count < 0 || blockLength < 0)
      throw new CommunicationError(`${name}: negative count ${count} or block length ${blockLength}`);
    const inner = this.layout(old);
    const segments: Array<readonly [number, number]> = [];
    for (let block = 0; block < count; block++) {
      for (let element = 0; element < blockLength; element++) {
        const start = (block * stride + element) * inner.extent;
        for (const [offset, length] of inner.segments) appendSegment(segments, start + offset, length);
      }
    }
    const extent = count === 0 ? 0 : ((count - 1) * stride + blockLength) * inner.extent;
    const handle = this.next++;
    this.derived.set(handle, {
      name,
      size: count * blockLength * inner.size,
      extent,
      segments,
      base: inner.base,
      committed: false,
    });
    return handle;
  }

  commit(handle: number): void {
    const derived = this.derived.get(handle);
    if (derived) derived.committed = true;
    else if (!PREDEFINED.has(handle))
      throw new CommunicationError(`MPI_Type_commit of unknown datatype handle ${handle}`);
  }

  free(handle: number): void {
    if (!this.derived.delete(handle))
      throw new CommunicationError(`MPI_Type_free of datatype handle ${handle}, which is not a derived type`);
  }
}

function appendSegment(segments: Array<readonly [number, number]>, offset: number, length: number): void {
  const last = segments[segments.length - 1];
  if (last && last[0] + last[1] === offset) segments[segments.length - 1] = [last[0], last[1] + length];
  else segments.push([offset, length]);
}

/** Combines `from` into `into` element-wise (`count` elements of predefined type `datatype`): into = into op from. */
export function combine(into: Uint8Array, from: Uint8Array, count: number, datatype: number, operator: number): void {
  const type = PREDEFINED.get(datatype);
  const op = OPERATOR_NAMES.get(operator);
  if (!type) throw new CommunicationError(`reductions take predefined datatypes; handle ${datatype} is not one`);
  if (!op) throw new CommunicationError(`unknown MPI operator handle ${operator}`);
  const isPair = type.indexOffset !== undefined;
  if (isPair !== (op === 'MPI_MINLOC' || op === 'MPI_MAXLOC')) {
    throw new CommunicationError(
      `${op} does not apply to ${type.name} (MINLOC/MAXLOC take the pair types, the others do not)`,
    );
  }
  if (type.scalar === 'f128')
    throw new CommunicationError(`${op} on ${type.name}: long double reductions are not supported`);
  const isFloat = type.scalar === 'f32' || type.scalar === 'f64';
  if (isFloat && /^MPI_[LB]/.test(op)) throw new CommunicationError(`${op} does not apply to ${type.name}`);
  if (type.bytesOnly && !/^MPI_B/.test(op))
    throw new CommunicationError(`${op} does not apply to ${type.name} (bitwise operators only)`);
  const a = new DataView(into.buffer, into.byteOffset, into.byteLength);
  const b = new DataView(from.buffer, from.byteOffset, from.byteLength);
  for (let i = 0; i < count; i++) {
    const at = i * type.bytes;
    if (type.indexOffset !== undefined) {
      const x = read(a, at, type.scalar);
      const y = read(b, at, type.scalar);
      const xi = a.getInt32(at + type.indexOffset, true);
      const yi = b.getInt32(at + type.indexOffset, true);
      const better = op === 'MPI_MINLOC' ? y < x : y > x;
      if (better || (x === y && yi < xi)) {
        write(a, at, type.scalar, y);
        a.setInt32(at + type.indexOffset, yi, true);
      }
      continue;
    }
    write(a, at, type.scalar, apply(op, read(a, at, type.scalar), read(b, at, type.scalar), type.scalar));
  }
}

function apply(op: string, x: number | bigint, y: number | bigint, type: Scalar): number | bigint {
  if (typeof x === 'bigint' && typeof y === 'bigint') {
    const bits = (v: boolean): bigint => (v ? 1n : 0n);
    switch (op) {
      case 'MPI_SUM':
        return x + y;
      case 'MPI_PROD':
        return x * y;
      case 'MPI_MAX':
        return x > y ? x : y;
      case 'MPI_MIN':
        return x < y ? x : y;
      case 'MPI_LAND':
        return bits(x !== 0n && y !== 0n);
      case 'MPI_LOR':
        return bits(x !== 0n || y !== 0n);
      case 'MPI_LXOR':
        return bits((x !== 0n) !== (y !== 0n));
      case 'MPI_BAND':
        return x & y;
      case 'MPI_BOR':
        return x | y;
      default:
        return x ^ y;
    }
  }
  const [u, v] = [Number(x), Number(y)];
  const bits = (b: boolean): number => (b ? 1 : 0);
  switch (op) {
    case 'MPI_SUM':
      return u + v;
    case 'MPI_PROD':
      return type === 'f32' || type === 'f64' ? u * v : Math.imul(u, v);
    case 'MPI_MAX':
      return Math.max(u, v);
    case 'MPI_MIN':
      return Math.min(u, v);
    case 'MPI_LAND':
      return bits(u !== 0 && v !== 0);
    case 'MPI_LOR':
      return bits(u !== 0 || v !== 0);
    case 'MPI_LXOR':
      return bits((u !== 0) !== (v !== 0));
    case 'MPI_BAND':
      return u & v;
    case 'MPI_BOR':
      return u | v;
    default:
      return u ^ v;
  }
}

function read(view: DataView, at: number, type: Scalar): number | bigint {
  switch (type) {
    case 'i8':
      return view.getInt8(at);
    case 'u8':
      return view.getUint8(at);
    case 'i16':
      return view.getInt16(at, true);
    case 'u16':
      return view.getUint16(at, true);
    case 'i32':
      return view.getInt32(at, true);
    case 'u32':
      return view.getUint32(at, true);
    case 'i64':
      return view.getBigInt64(at, true);
    case 'u64':
      return view.getBigUint64(at, true);
    case 'f32':
      return view.getFloat32(at, true);
    default:
      return view.getFloat64(at, true);
  }
}

/** Stores `value`, wrapping integers to the type's width (two's complement, as C's unsigned arithmetic). */
function write(view: DataView, at: number, type: Scalar, value: number | bigint): void {
  const n = typeof value === 'bigint' ? value : 0n;
  const v = typeof value === 'number' ? value : 0;
  switch (type) {
    case 'i8':
      return view.setInt8(at, v);
    case 'u8':
      return view.setUint8(at, v);
    case 'i16':
      return view.setInt16(at, v, true);
    case 'u16':
      return view.setUint16(at, v, true);
    case 'i32':
      return view.setInt32(at, v, true);
    case 'u32':
      return view.setUint32(at, v, true);
    case 'i64':
      return view.setBigInt64(at, BigInt.asIntN(64, n), true);
    case 'u64':
      return view.setBigUint64(at, BigInt.asUintN(64, n), true);
    case 'f32':
      return view.setFloat32(at, v, true);
    default:
      return view.setFloat64(at, v, true);
  }
}
