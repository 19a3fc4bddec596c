// Human-readable loop profiles: the dynamic loop tree as an indented table, and the comparison of
// function-level and loop-level profiles (Sato et al.'s LU example: a function's share split by loop).
import type { LoopProfileReport } from '../profile/profile-run.js';
import type { LoopEntry } from '../profile/loop-profile.js';
import { percent, renderTable, type TableLayout } from './table.js';
import { displayName, displaySource, pathTail } from './names.js';
import { wrap } from './wrap.js';
import { programLoops } from '../profile/loop-sources.js';

export interface LoopTableOptions extends TableLayout {
  /** Wrap prose lines to this width (default: no wrapping). */
  proseWidth?: number;
  /** Only the N costliest loop contexts (by inclusive instructions), with their enclosing loops. */
  top?: number;
  /** Also list the loops of library code (wasi-libc, libc++, the AssemblyScript runtime). The CLI's
   *  --all also drops its default --top, so every loop context is shown. */
  all?: boolean;
}

export const LOOP_LEGEND = [
  'ids: L = static loop, C = call site (the site table of taintlens instrument --mode loops)',
  'called from: the callers, innermost last, each with its call site (its source line with debug info); siblings by inclusive cost',
  'instr / incl: share of all instructions, exclusive / inclusive of nested loops and callees',
];

export function loopTable(report: LoopProfileReport, options: LoopTableOptions = {}): string {
  const library = new Set(report.libraryFunctions ?? []);
  const candidates = options.all ? report.loops : programLoops(report.loops, library);
  const shown = options.top !== undefined ? costliest(candidates, options.top) : candidates;
  const ordered = treeOrder(shown);
  const total = report.totalInstructions;
  const withSources = report.loops.some((l) => l.source);
  const rows = renderTable(
    ordered,
    [
      { header: 'loop', value: (l) => `${'  '.repeat(l.depth - 1)}${l.loop}` },
      ...(withSources
        ? [
            {
              header: 'source',
              value: (l: LoopEntry) => displaySource(l.source),
              shrink: 'start' as const,
              max: 24,
              min: 12,
              shrinkOrder: 0,
            },
          ]
        : []),
      { header: 'function', value: (l) => displayName(l.function), shrink: 'end', max: 24, min: 12 },
      { header: 'called from', value: callerContext, shrink: pathTail, max: 36, min: 20, shrinkOrder: 0 },
      { header: 'entries', value: (l) => l.entries },
      { header: 'iterations', value: (l) => l.iterations },
      {
        header: 'iter/entry',
        value: (l) => (l.entries ? Number((l.iterations / l.entries).toFixed(1)) : 0),
        dropOrder: 0,
      },
      { header: 'instr', value: (l) => percent(l.instructions, total), align: 'right' },
      { header: 'incl', value: (l) => percent(l.inclusiveInstructions, total), align: 'right' },
      {
        header: 'calls inside',
        value: (l) => (l.calls.length ? l.calls.join(' ') : '-'),
        shrink: 'end',
        max: 24,
        min: 12,
        shrinkOrder: 0,
        dropOrder: 1,
      },
    ],
    options,
  );
  const omitted = candidates.length - shown.length;
  const folded = report.loops.length - candidates.length;
  const notes: string[] = [];
  if (omitted > 0)
    notes.push(
      `(${shown.length} of ${candidates.length} loop contexts: the costliest by inclusive instructions; --all without --top for all)`,
    );
  if (folded > 0)
    notes.push(
      `(${folded} loop context(s) of library code folded into their callers' inclusive cost; --all lists them)`,
    );
  if (!withSources && report.sources?.note) notes.push(`(${report.sources.note})`);
  const tableWidth = options.wide ? Infinity : (options.width ?? Infinity);
  const note = notes.length > 0 ? `\n${notes.map((n) => wrap(n, tableWidth, ' ')).join('\n')}` : '';
  const legend = LOOP_LEGEND.map((line) => wrap(line, tableWidth, '  ')).join('\n');
  return `${rows}${note}\n\n${legend}\n${wrap(header(report), options.wide ? Infinity : (options.proseWidth ?? Infinity))}`;
}

/**
 * `main:C14 > run:C30`: the callers of the loop's function, each with the call site it called from;
 * with debug info the site's line instead (`main:88 > run:42`), with its file when that is not the
 * caller's own file (`run:vec.h:42`: a call inlined from a helper in another file).
 */
export function callerContext(
  loop: Pick<LoopEntry, 'callpath' | 'callsites' | 'callsiteSources' | 'callerFiles' | 'source'>,
): string {
  const functions = loop.callpath.split('->');
  if (functions.length < 2) return '-';
  const loopFile = loop.source?.replace(/:\d+$/, '');
  const site = (i: number) => {
    const source = loop.callsiteSources?.[i];
    if (!source) return loop.callsites[i] ?? '?';
    // A bare line is a line of the caller's own file: a site inlined from elsewhere keeps its file.
    const callerFile = loop.callerFiles?.[i] ?? loopFile;
    return source.replace(/:\d+$/, '') === callerFile
      ? source.slice(source.lastIndexOf(':') + 1)
      : displaySource(source);
  };
  return functions
    .slice(0, -1)
    .map((fn, i) => `${displayName(fn)}:${site(i)}`)
    .join(' > ');
}

/** The `count` loop contexts of highest inclusive cost, and the loops enclosing them. */
function costliest(loops: readonly LoopEntry[], count: number): LoopEntry[] {
  const byId = new Map(loops.map((loop) => [loop.id, loop]));
  const keep = new Set<string>();
  const ranked = loops
    .map((loop, i) => ({ loop, i }))
    .sort((a, b) => b.loop.inclusiveInstructions - a.loop.inclusiveInstructions || a.i - b.i);
  for (const { loop } of ranked.slice(0, Math.max(0, count))) {
    for (let at: LoopEntry | undefined = loop; at && !keep.has(at.id); at = at.parent ? byId.get(at.parent) : undefined)
      keep.add(at.id);
  }
  return loops.filter((loop) => keep.has(loop.id));
}

export function compareTable(report: LoopProfileReport): string {
  const total = report.totalInstructions;
  type Row = { name: string; level: string; calls: number | string; exclusive: number; inclusive: number };
  const rows: Row[] = [];
  // The program's own functions first, library code after (each group by exclusive cost).
  const library = new Set(report.libraryFunctions ?? []);
  const functions = [...report.functions].sort(
    (a, b) => Number(library.has(a.name)) - Number(library.has(b.name)) || b.instructions - a.instructions,
  );
  for (const fn of functions) {
    rows.push({
      name: displayName(fn.name),
      level: library.has(fn.name) ? 'library' : 'function',
      calls: fn.calls,
      exclusive: fn.instructions,
      inclusive: fn.inclusiveInstructions,
    });
    const loops = report.loops.filter((l) => l.function === fn.name);
    const byLoop = new Map<string, Row>();
    for (const loop of loops) {
      const row = byLoop.get(loop.loop) ?? {
        name: `  ${loop.loop}`,
        level: `loop (depth ${loop.depth})`,
        calls: '',
        exclusive: 0,
        inclusive: 0,
      };
      row.exclusive += loop.instructions;
      row.inclusive += loop.inclusiveInstructions;
      byLoop.set(loop.loop, row);
    }
    rows.push(...[...byLoop.values()].sort((a, b) => b.exclusive - a.exclusive));
  }
  return renderTable(rows, [
    { header: 'function / loop', value: (r) => r.name },
    { header: 'level', value: (r) => r.level },
    { header: 'calls', value: (r) => r.calls, align: 'right' },
    { header: 'self', value: (r) => percent(r.exclusive, total), align: 'right' },
    { header: 'total', value: (r) => percent(r.inclusive, total), align: 'right' },
  ]);
}

function header(report: LoopProfileReport): string {
  const call = report.invoke ? `${report.invoke}(${report.args.join(', ')})` : `_start ${report.args.join(' ')}`;
  return (
    `${report.module}: ${call} = ${JSON.stringify(report.result)}; ` +
    `${report.totalInstructions.toLocaleString('en-US')} instructions, ${report.loops.length} loop contexts, ` +
    `${report.timing.medianMs.toFixed(2)} ms profiled (median of ${report.timing.runs})`
  );
}

/** Parents before children, siblings by inclusive cost (the costliest first), ties in first-run order. */
export function treeOrder(loops: readonly LoopEntry[]): LoopEntry[] {
  const children = new Map<string | null, LoopEntry[]>();
  for (const loop of loops) {
    const list = children.get(loop.parent) ?? [];
    list.push(loop);
    children.set(loop.parent, list);
  }
  for (const list of children.values()) list.sort((a, b) => b.inclusiveInstructions - a.inclusiveInstructions);
  const out: LoopEntry[] = [];
  const visit = (parent: string | null) => {
    for (const loop of children.get(parent) ?? []) {
      out.push(loop);
      visit(loop.id);
    }
  };
  visit(null);
  return out;
}
