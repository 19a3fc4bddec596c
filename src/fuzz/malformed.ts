// Malformed variants of a valid module, for checking that every command ends with a clear error:
// truncations, corrupted bytes, section sizes past the end, absurd counts and limits.
import { Rng } from './rng.js';
import { uleb } from '../util/leb128.js';
import { readSections } from '../../instrument/wasm-reader.js';

export interface MalformedInput {
  name: string;
  bytes: Uint8Array;
}

const LEB_MAX = [0xff, 0xff, 0xff, 0xff, 0x0f];

function splice(bytes: Uint8Array, at: number, remove: number, insert: number[]): Uint8Array {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

function lebLength(bytes: Uint8Array, at: number): number {
  let n = 0;
  while (bytes[at + n]! & 0x80) n++;
  return n + 1;
}

export function malformedVariants(valid: Uint8Array, seed: number): MalformedInput[] {
  const rng = new Rng(seed);
  const out: MalformedInput[] = [];
  for (const cut of [1, 4, 8, 9, 10, Math.floor(valid.length / 2), valid.length - 1]) {
    out.push({ name: `truncated-at-${cut}`, bytes: valid.slice(0, cut) });
  }
  for (const section of readSections(valid)) {
    out.push({
      name: `section-${section.id}-cut`,
      bytes: valid.slice(0, Math.max(section.contentStart, section.end - 1)),
    });
    const sizeLength = section.contentStart - section.offset - 1;
    out.push({
      name: `section-${section.id}-huge-size`,
      bytes: splice(valid, section.offset + 1, sizeLength, LEB_MAX),
    });
    if (section.end > section.contentStart) {
      // The first field of most sections is a count: make it absurd.
      out.push({
        name: `section-${section.id}-huge-count`,
        bytes: splice(valid, section.contentStart, lebLength(valid, section.contentStart), LEB_MAX),
      });
    }
    if (section.id === 5 && section.end - section.contentStart >= 3) {
      // Memory limits: 65536 pages (4 GiB), valid to compile, impossible to allocate with our data on top.
      const limits = section.contentStart + 1;
      const flags = valid[limits]!;
      const rest = valid.subarray(
        limits +
          1 +
          lebLength(valid, limits + 1) +
          (flags & 1 ? lebLength(valid, limits + 1 + lebLength(valid, limits + 1)) : 0),
        section.end,
      );
      const content = [1, 0x01, 0x80, 0x80, 0x04, 0x80, 0x80, 0x04, ...rest];
      const body = [5, ...uleb(content.length), ...content];
      out.push({
        name: 'memory-65536-pages',
        bytes: splice(valid, section.offset, section.end - section.offset, body),
      });
    }
  }
  for (let i = 0; i < 12; i++) {
    const bytes = valid.slice();
    for (let k = rng.range(1, 4); k > 0; k--) bytes[rng.range(8, bytes.length - 1)] = rng.below(256);
    out.push({ name: `corrupted-${i}`, bytes });
  }
  out.push({ name: 'bad-version', bytes: splice(valid, 4, 4, [2, 0, 0, 0]) });
  out.push({ name: 'trailing-garbage', bytes: new Uint8Array([...valid, 0x0b, 0xff, 0x00]) });
  return out;
}
