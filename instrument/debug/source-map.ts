// AssemblyScript source maps (`asc --sourceMap`, the .wasm.map beside the module): Binaryen writes
// one generated "line" whose columns are byte offsets into the .wasm file.
import type { LineRow } from './dwarf-line.js';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Mapped positions sorted by file offset (`address` is the offset in the .wasm file). */
export function readSourceMap(text: string, mapFile: string): LineRow[] {
  let map: { version?: unknown; sources?: unknown; mappings?: unknown; sourceRoot?: unknown };
  try {
    map = JSON.parse(text) as typeof map;
  } catch (error) {
    throw new Error(`${mapFile}: malformed source map JSON (${(error as Error).message})`, { cause: error });
  }
  if (map.version !== 3 || !Array.isArray(map.sources) || typeof map.mappings !== 'string') {
    throw new Error(`${mapFile}: not a version 3 source map with "sources" and "mappings"`);
  }
  const sources = map.sources.map(String);
  const rows: LineRow[] = [];
  let offset = 0,
    source = 0,
    line = 0,
    column = 0;
  for (const group of map.mappings.split(';')) {
    offset = 0;
    for (const segment of group.split(',')) {
      if (segment === '') continue;
      const fields = decodeVlq(segment, mapFile);
      offset += fields[0]!;
      if (fields.length < 4) continue;
      source += fields[1]!;
      line += fields[2]!;
      column += fields[3]!;
      rows.push({ address: offset, file: sources[source] ?? '?', line: line + 1, column: column + 1 });
    }
  }
  return rows.sort((a, b) => a.address - b.address);
}

function decodeVlq(segment: string, mapFile: string): number[] {
  const values: number[] = [];
  let value = 0,
    shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    if (digit < 0) throw new Error(`${mapFile}: bad character '${char}' in "mappings"`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2));
    value = 0;
    shift = 0;
  }
  return values;
}
