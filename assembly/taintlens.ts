// Taintlens annotation API for AssemblyScript kernels.
//
// A kernel marks each of its input parameters with `param`, e.g.
//
//   n = param<i32>(n, "n");
//
// The value is stored into a freshly allocated heap box, the box's bytes are
// registered with the host under the given name, and the value is loaded back
// from the box. A taint analysis running in the host therefore sees a load
// from labelled memory and can track how the parameter flows into loop
// conditions. Uninstrumented hosts can implement `register_variable` as a
// no-op; the returned value is always identical to the argument.

// @ts-ignore: decorator
@external("taintlens", "register_variable")
declare function register_variable(addr: usize, size: i32, name: usize): void;

/**
 * Encodes `name` as a NUL-terminated UTF-8 string in freshly allocated memory
 * and returns its address. Unpaired surrogates are encoded as U+FFFD.
 */
function encodeName(name: string): usize {
  const units = name.length;
  // At most 3 bytes per UTF-16 code unit (a surrogate pair takes 4 bytes for
  // 2 units), plus the terminating NUL.
  const out = heap.alloc(<usize>units * 3 + 1);
  const src = changetype<usize>(name);
  let pos = out;
  let i = 0;
  while (i < units) {
    let cp = <u32>load<u16>(src + (<usize>i << 1));
    i++;
    if (cp >= 0xd800 && cp < 0xe000) {
      if (cp < 0xdc00 && i < units) {
        const lo = <u32>load<u16>(src + (<usize>i << 1));
        if (lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          i++;
        } else {
          cp = 0xfffd;
        }
      } else {
        cp = 0xfffd;
      }
    }
    if (cp < 0x80) {
      store<u8>(pos, cp);
      pos += 1;
    } else if (cp < 0x800) {
      store<u8>(pos, 0xc0 | (cp >> 6));
      store<u8>(pos, 0x80 | (cp & 0x3f), 1);
      pos += 2;
    } else if (cp < 0x10000) {
      store<u8>(pos, 0xe0 | (cp >> 12));
      store<u8>(pos, 0x80 | ((cp >> 6) & 0x3f), 1);
      store<u8>(pos, 0x80 | (cp & 0x3f), 2);
      pos += 3;
    } else {
      store<u8>(pos, 0xf0 | (cp >> 18));
      store<u8>(pos, 0x80 | ((cp >> 12) & 0x3f), 1);
      store<u8>(pos, 0x80 | ((cp >> 6) & 0x3f), 2);
      store<u8>(pos, 0x80 | (cp & 0x3f), 3);
      pos += 4;
    }
  }
  store<u8>(pos, 0);
  return out;
}

/**
 * Marks `value` as the input parameter `name` and returns it unchanged.
 *
 * The value round-trips through a registered heap box so that the returned
 * value carries the parameter's label in a taint analysis.
 */
// @ts-ignore: decorator
@inline
export function param<T>(value: T, name: string): T {
  const box = heap.alloc(sizeof<T>());
  store<T>(box, value);
  register_variable(box, <i32>sizeof<T>(), encodeName(name));
  return load<T>(box);
}

/**
 * Marks `size` bytes of linear memory starting at `addr` as the input
 * parameter `name` (e.g. an input array whose contents drive control flow).
 */
export function paramMemory(addr: usize, size: i32, name: string): void {
  register_variable(addr, size, encodeName(name));
}
