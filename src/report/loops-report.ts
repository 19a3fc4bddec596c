// Human-readable loop profiles: the dynamic loop tree as an indented table, and the comparison of
// function-level and loop-level profiles (Sato et al.'s LU example: a function's share split by loop).
import type { LoopProfileReport } from '../profile/profile-run.js';
import type { LoopEntry } from '../profile/loop-profile.js';
import { percent, renderTable } from './table.js';
import { displayName } from './names.js';

export function loopTable(report: LoopProfileReport): string {
  const ordered = treeOrder(report.loops);
  const total = report.totalInstructions;
  const rows = renderTable(ordered, [
    { header: 'loop', value: (l) => `${'  '.repeat(l.depth - 1)}${l.loop}` },
    { header: 'function', value: (l) => displayName(l.function) },
    { header: 'depth', value: (l) => l.depth },
    { header: 'entries', value: (l) => l.entries },
    { header: 'iterations', value: (l) => l.iterations },
    { header: 'iter/entry', value: (l) => (l.entries ? Number((l.iterations / l.entries).toFixed(1)) : 0) },
    { header: 'instr', value: (l) => percent(l.instructions, total), align: 'right' },
    { header: 'incl', value: (l) => percent(l.inclusiveInstructions, total), align: 'right' },
    { header: 'calls inside', value: (l) => l.calls.length ? l.calls.join(' ') : '-' },
  ]);
  return `${rows}\n\n${header(report)}`;
}

export function compareTable(report: LoopProfileReport): string {
  const total = report.totalInstructions;
  type Row = { name: string; level: string; calls: number | string; exclusive: number; inclusive: number };
  const rows: Row[] = [];
  const functions = [...report.functions].sort((a, b) => b.instructions - a.instructions);
  for (const fn of functions) {
    rows.push({ name: displayName(fn.name), level: 'function', calls: fn.calls, exclusive: fn.instructions, inclusive: fn.inclusiveInstructions });
    const loops = report.loops.filter((l) => l.function === fn.name);
    const byLoop = new Map<string, Row>();
    for (const loop of loops) {
      const row = byLoop.get(loop.loop) ?? { name: `  ${loop.loop}`, level: `loop (depth ${loop.depth})`, calls: '', exclusive: 0, inclusive: 0 };
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
  return `${report.module}: ${call} = ${JSON.stringify(report.result)}; ` +
    `${report.totalInstructions.toLocaleString('en-US')} instructions, ${report.loops.length} loop contexts, ` +
    `${report.timing.medianMs.toFixed(2)} ms profiled (median of ${report.timing.runs})`;
}

/** Parents before children, siblings in first-run order. */
function treeOrder(loops: LoopEntry[]): LoopEntry[] {
  const children = new Map<string | null, LoopEntry[]>();
  for (const loop of loops) {
    const list = children.get(loop.parent) ?? [];
    list.push(loop);
    children.set(loop.parent, list);
  }
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
