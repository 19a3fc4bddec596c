// Source positions of a module's functions, loops, calls and branches: DWARF line tables of a clang
// -g build or the AssemblyScript source map beside the module, joined with the Code section offsets.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scanCode, type FunctionOffsets } from './code-scan.js';
import { readDebugLine, type LineRow } from './dwarf-line.js';
import { readSourceMap } from './source-map.js';
import { ByteReader, customSection, readSections } from '../wasm-reader.js';

export interface SourceLocation {
  file: string;
  line: number;
}

export type LocationOrigin = 'dwarf' | 'source-map';

export interface FunctionLocations {
  location: SourceLocation | null;
  /** Every source file with a line in this function (library detection looks at them). */
  files: string[];
  loops: Array<SourceLocation | null>;
  calls: Array<SourceLocation | null>;
  branches: Array<SourceLocation | null>;
}

export interface ModuleLocations {
  origin: LocationOrigin | null;
  /** Where the positions came from, or why there are none and how to get them. */
  note: string;
  /** Per defined function, in module order. */
  functions: FunctionLocations[];
}

export const NO_DEBUG_INFO_NOTE =
  'no source locations: build C/C++ with -g (clang keeps .debug_line) or AssemblyScript with --sourceMap (the .wasm.map beside the module)';

/** `sourceMap`: the text of the module's source map when it is not (yet) a file beside it (the AS transform). */
export function readModuleLocations(bytes: Uint8Array, file: string, sourceMap?: string): ModuleLocations {
  const sections = readSections(bytes);
  const code = scanCode(bytes);
  if (!code) return { origin: null, note: NO_DEBUG_INFO_NOTE, functions: [] };
  const debugLine = customSection(bytes, sections, '.debug_line');
  let rows: LineRow[] | null = null;
  let origin: LocationOrigin | null = null;
  let note = NO_DEBUG_INFO_NOTE;
  if (debugLine) {
    try {
      const sequences = readDebugLine(debugLine, {
        debugStr: customSection(bytes, sections, '.debug_str'),
        debugLineStr: customSection(bytes, sections, '.debug_line_str'),
      });
      // Sequences of code the linker dropped start at a tombstone address outside the Code section.
      rows = sequences.filter((s) => s.start > 0 && s.start < 0xfffffff0)
        .flatMap((s) => s.rows.map((r) => ({ ...r, address: r.address + code.sectionStart })));
      origin = 'dwarf';
      note = 'source locations from DWARF .debug_line';
    } catch (error) {
      note = `unreadable .debug_line (${(error as Error).message}); ${NO_DEBUG_INFO_NOTE}`;
    }
  } else if (sourceMap !== undefined) {
    rows = readSourceMap(sourceMap, `${file}.map`);
    origin = 'source-map';
    note = 'source locations from the compiler\'s source map';
  } else {
    const mapFile = sourceMapFile(bytes, sections, file);
    if (mapFile) {
      rows = readSourceMap(readFileSync(mapFile, 'utf8'), mapFile);
      origin = 'source-map';
      note = `source locations from ${mapFile}`;
    }
  }
  rows?.sort((a, b) => a.address - b.address);
  const functions = code.functions.map((fn) => locateFunction(fn, rows ?? []));
  return { origin, note, functions };
}

/** The source map named by the sourceMappingURL section, else `<module>.map`, when it exists. */
function sourceMapFile(bytes: Uint8Array, sections: ReturnType<typeof readSections>, file: string): string | null {
  const url = customSection(bytes, sections, 'sourceMappingURL');
  const candidates: string[] = [];
  if (url) {
    const name = new ByteReader(url).name();
    if (!/^[a-z]+:/i.test(name)) candidates.push(join(dirname(file), name));
  }
  candidates.push(`${file}.map`);
  return candidates.find((c) => existsSync(c)) ?? null;
}

function locateFunction(fn: FunctionOffsets, allRows: LineRow[]): FunctionLocations {
  const rows = rowsIn(allRows, fn.bodyStart, fn.bodyEnd).filter((r) => r.line > 0);
  // A call's or branch's line: the position covering its opcode.
  const covering = (at: number) => {
    let found: LineRow | null = null;
    for (const row of rows) {
      if (row.address > at) break;
      found = row;
    }
    return found;
  };
  const strip = (row: LineRow | null): SourceLocation | null => (row ? { file: row.file, line: row.line } : null);
  return {
    location: strip(rows[0] ?? null),
    files: [...new Set(rows.map((r) => r.file))],
    // A loop's line: that of its last back-edge, which tests the loop condition (the `for`/`while`
    // line) in the rotated loops compilers emit; a loop without one, its opening position.
    loops: fn.loops.map((at, i) => strip(covering(fn.backEdges[i]!.at(-1) ?? at))),
    calls: fn.calls.map((at) => strip(covering(at))),
    branches: fn.branches.map((at) => strip(covering(at))),
  };
}

function rowsIn(rows: LineRow[], start: number, end: number): LineRow[] {
  let low = 0, high = rows.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (rows[mid]!.address < start) low = mid + 1;
    else high = mid;
  }
  const out: LineRow[] = [];
  for (let i = low; i < rows.length && rows[i]!.address < end; i++) out.push(rows[i]!);
  return out;
}

export function formatLocation(location: SourceLocation | null | undefined): string {
  return location ? `${location.file}:${location.line}` : '';
}
