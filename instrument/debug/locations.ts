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
      rows = sequences
        .filter((s) => s.start > 0 && s.start < 0xfffffff0)
        .flatMap((s) => s.rows.map((r) => ({ ...r, address: r.address + code.sectionStart })));
      origin = 'dwarf';
      note = 'source locations from DWARF .debug_line';
    } catch (error) {
      note = `unreadable .debug_line (${(error as Error).message}); ${NO_DEBUG_INFO_NOTE}`;
    }
  } else if (sourceMap !== undefined) {
    rows = readSourceMap(sourceMap, `${file}.map`);
    origin = 'source-map';
    note = "source locations from the compiler's source map";
  } else {
    const mapFile = sourceMapFile(bytes, sections, file);
    if (mapFile) {
      rows = readSourceMap(readFileSync(mapFile, 'utf8'), mapFile);
      origin = 'source-map';
      note = `source locations from ${mapFile}`;
    }
  }
  rows?.sort((a, b) => a.address - b.address);
  const functions = code.functions.map((fn) => locateFunction(fn, rows ?? [], origin));
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

function locateFunction(fn: FunctionOffsets, allRows: LineRow[], origin: LocationOrigin | null): FunctionLocations {
  const rows = rowsIn(allRows, fn.bodyStart, fn.bodyEnd).filter((r) => r.line > 0);
  // Inlined code (a helper from another file, the AS standard library) has rows of its own file in
  // the body; the function's own lines are those of its own file.
  const file = ownFile(rows);
  const ownRows = rows.filter((r) => r.file === file);
  // A call's or branch's line: the position covering its opcode.
  const covering = (at: number, among: LineRow[]) => {
    let found: LineRow | null = null;
    for (const row of among) {
      if (row.address > at) break;
      found = row;
    }
    return found;
  };
  const strip = (row: LineRow | null): SourceLocation | null => (row ? { file: row.file, line: row.line } : null);
  const loopRow = (at: number, backEdges: number[]): LineRow | null => {
    const lastBackEdge = backEdges.at(-1);
    if (origin === 'source-map') {
      // Binaryen maps a Loop expression to its `for`/`while` statement; after optimization the
      // header's condition may have lost its position, and then the loop's first own-file row
      // (the condition or increment it was rotated into) carries the header line.
      const first = ownRows.find((r) => r.address >= at && r.address <= (lastBackEdge ?? at));
      if (first) return first;
    }
    // DWARF: the line of the last back-edge, which tests the loop condition (the `for`/`while`
    // line) in the rotated loops compilers emit; a loop without one, its opening position.
    return covering(lastBackEdge ?? at, ownRows) ?? covering(lastBackEdge ?? at, rows);
  };
  return {
    location: strip(ownRows[0] ?? null),
    files: [...new Set(rows.map((r) => r.file))],
    loops: fn.loops.map((at, i) => strip(loopRow(at, fn.backEdges[i] ?? []))),
    calls: fn.calls.map((at) => strip(covering(at, rows))),
    branches: fn.branches.map((at) => strip(covering(at, rows))),
  };
}

/** The file with the most distinct lines in the body (inlined helpers repeat few lines); ties: the first seen. */
function ownFile(rows: LineRow[]): string | null {
  const lines = new Map<string, Set<number>>();
  for (const row of rows) {
    const seen = lines.get(row.file) ?? new Set<number>();
    seen.add(row.line);
    lines.set(row.file, seen);
  }
  let best: string | null = null,
    most = 0;
  for (const [file, seen] of lines) {
    if (seen.size > most) {
      best = file;
      most = seen.size;
    }
  }
  return best;
}

function rowsIn(rows: LineRow[], start: number, end: number): LineRow[] {
  let low = 0,
    high = rows.length;
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
