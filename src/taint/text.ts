// The taint report for people: functions with their dependency expressions, loops with the
// parameters of their exit conditions, parameter coverage, tainted branches, code not executed.
import { renderTable, type TableLayout } from '../report/table.js';
import type { TaintReport } from './report.js';
import { displayName, displaySource, pathTail } from '../report/names.js';
import { wrap } from '../report/wrap.js';
import { topBranches, topFunctions, topList, topLoops, topRows } from './top.js';

const list = (names: string[]) => (names.length > 0 ? names.join(', ') : '-');
/** Parameters of each exit condition: `n | n,m`. */
const exitList = (exits: string[][]) =>
  exits.length > 0 ? exits.map((e) => (e.length > 0 ? e.join(',') : '-')).join(' | ') : '-';

/**
 * `top`: only the N rows of each table that matter most (top.ts); `all`: library and unexecuted code
 * too; `layout`: the width tables fit (call paths keep their leaf, long lists wrap), or wide;
 * `proseWidth`: the width prose lines wrap to (a terminal's; none in a file or pipe).
 */
export function renderTaintReport(
  report: TaintReport,
  all = false,
  top?: number,
  layout: TableLayout = {},
  proseWidth = Infinity,
): string {
  const out: string[] = [];
  const omitted = (shown: number, of: number, what: string) => {
    if (shown < of)
      out.push(
        `(${shown} of ${of} ${what}: parameter-dependent first, then by iterations; --all without --top for all)`,
      );
  };
  out.push(`parameters: ${list(report.parameters)}`);
  const semantics = report.semantics;
  if (semantics)
    out.push(
      `semantics: --implicit-flow ${semantics.implicitFlow} --pointer-labels ${semantics.pointerLabels} --shadow ${semantics.shadow}`,
    );
  // Library code (wasi-libc, libc++, AS runtime) only with --all: its cost is in its callers' dependency.
  const library = new Set(report.functions.filter((f) => f.library).map((f) => f.name));
  const withSources = report.functions.some((f) => f.source) || report.loops.some((l) => l.source);
  const sourceColumn = <Row extends { source?: string | null }>() =>
    withSources
      ? [{ header: 'source', value: (r: Row) => displaySource(r.source), shrink: 'start' as const, max: 24, min: 12 }]
      : [];
  const listedFunctions = report.functions.filter(
    (f) => all || ((f.pruned === null || (f.pruned === 'dynamic' && f.executed)) && !library.has(f.name)),
  );
  const functions = top === undefined ? listedFunctions : topFunctions(listedFunctions, report.loops, top);
  out.push('', 'functions (dependency: nesting multiplies, siblings add)');
  out.push(
    renderTable(
      functions,
      [
        { header: 'function', value: (f) => displayName(f.name), shrink: 'end', max: 32, min: 12 },
        ...sourceColumn<TaintReport['functions'][number]>(),
        { header: 'dependency', value: (f) => f.dependency ?? 'constant', shrink: 'wrap', min: 16 },
        { header: 'params', value: (f) => list(f.params), shrink: 'wrap', min: 8 },
        { header: 'pruned', value: (f) => f.pruned ?? '-' },
        {
          header: 'call path',
          value: (f) => (f.callpath ? f.callpath.map(displayName).join(' > ') : '-'),
          shrink: pathTail,
          min: 16,
          shrinkOrder: 0,
        },
      ],
      layout,
    ),
  );
  omitted(functions.length, listedFunctions.length, 'functions');
  out.push(constantLine(report));
  const listedLoops = report.loops.filter((l) => all || (l.executed && !library.has(l.function)));
  const loops = top === undefined ? listedLoops : topLoops(listedLoops, top);
  const foldedLoops = report.loops.filter((l) => l.executed && library.has(l.function)).length;
  if (!all && foldedLoops > 0)
    out.push(
      `library code (${library.size} function(s), ${foldedLoops} executed loop(s)) folded into its callers; --all lists it`,
    );
  if (!withSources && report.sources?.note) out.push(report.sources.note);
  out.push('', 'loops (parameters of the exit conditions)');
  out.push(
    renderTable(
      loops,
      [
        { header: 'loop', value: (l) => l.id },
        ...sourceColumn<TaintReport['loops'][number]>(),
        { header: 'function', value: (l) => displayName(l.function), shrink: 'end', max: 32, min: 12 },
        { header: 'parent', value: (l) => l.parent ?? '-' },
        { header: 'params', value: (l) => list(l.params), shrink: 'wrap', min: 8 },
        { header: 'iterations', value: (l) => l.iterations },
        { header: 'constant trips', value: (l) => l.staticTrips ?? '-' },
      ],
      layout,
    ),
  );
  omitted(loops.length, listedLoops.length, 'loops');
  // A loop whose parameters depend on the call path that reached its function: each context.
  const split = loops.filter((l) => new Set(l.contexts.map((c) => c.params.join(','))).size > 1);
  if (split.length > 0) {
    const contexts = split.flatMap((l) => l.contexts.map((c) => ({ loop: l, context: c })));
    const shownContexts =
      top === undefined
        ? contexts
        : topRows(
            contexts,
            top,
            (r) => r.context.params.length > 0,
            (r) => r.context.iterations,
          );
    out.push('', 'loops whose parameters depend on the calling context (call path from the entry)');
    out.push(
      renderTable(
        shownContexts,
        [
          { header: 'loop', value: (r) => r.loop.id },
          {
            header: 'call path',
            value: (r) =>
              `${r.context.callpath.map(displayName).join('→')}${r.context.call ? ` (${r.context.call})` : ''}`,
            shrink: pathTail,
            min: 16,
            shrinkOrder: 0,
          },
          { header: 'params', value: (r) => list(r.context.params), shrink: 'wrap', min: 8 },
          { header: 'per exit', value: (r) => exitList(r.context.exits), shrink: 'wrap', min: 8 },
          { header: 'iterations', value: (r) => r.context.iterations },
        ],
        layout,
      ),
    );
    if (shownContexts.length < contexts.length)
      out.push(`(${shownContexts.length} of ${contexts.length} loop contexts; --all without --top for all)`);
  }
  out.push('', 'parameters');
  out.push(
    renderTable(
      report.parameters,
      [
        { header: 'parameter', value: (p) => p },
        { header: 'loops', value: (p) => topList(report.coverage[p]!.loops, top), shrink: 'wrap', min: 12 },
        {
          header: 'functions',
          value: (p) => topList(report.coverage[p]!.functions.map(displayName), top),
          shrink: 'wrap',
          min: 12,
        },
        { header: 'branches', value: (p) => topList(report.coverage[p]!.branches, top), shrink: 'wrap', min: 12 },
      ],
      layout,
    ),
  );
  out.push(`prunable (drive no loop): ${list(report.prunable)}`);
  // Library branches (printf's format parsing) are folded like library loops; --all lists them.
  const allTainted = report.branches.filter((b) => b.params.length > 0 && (all || !library.has(b.function)));
  const foldedBranches = report.branches.filter((b) => b.params.length > 0).length - allTainted.length;
  const tainted = top === undefined ? allTainted : topBranches(allTainted, report.loops, top);
  if (tainted.length > 0) {
    out.push('', 'parameter-dependent branches (algorithm selection)');
    out.push(
      renderTable(
        tainted,
        [
          { header: 'branch', value: (b) => b.id },
          ...sourceColumn<TaintReport['branches'][number]>(),
          { header: 'kind', value: (b) => b.kind },
          { header: 'function', value: (b) => displayName(b.function), shrink: 'end', max: 32, min: 12 },
          { header: 'loop', value: (b) => b.loop ?? '-' },
          { header: 'params', value: (b) => list(b.params), shrink: 'wrap', min: 8 },
        ],
        layout,
      ),
    );
    if (tainted.length < allTainted.length)
      out.push(
        `(${tainted.length} of ${allTainted.length} branches: those in the loops of most iterations; --all without --top for all)`,
      );
  }
  if (foldedBranches > 0)
    out.push(
      `${foldedBranches} parameter-dependent branch(es) of library code folded into their callers; --all lists them`,
    );
  const costs = report.imports.filter((i) => i.params.length > 0 && i.executed);
  if (costs.length > 0) {
    out.push('', 'host calls with a parameter-dependent cost');
    out.push(
      renderTable(
        costs,
        [
          { header: 'call', value: (i) => i.id },
          { header: 'import', value: (i) => i.import, shrink: 'end', min: 12 },
          { header: 'function', value: (i) => displayName(i.function), shrink: 'end', max: 32, min: 12 },
          { header: 'params', value: (i) => list(i.params), shrink: 'wrap', min: 8 },
        ],
        layout,
      ),
    );
  }
  out.push(
    '',
    `not executed in this run: ${report.notExecuted.loops.length} loop(s), ${report.notExecuted.branches.length} branch(es)${all ? `: ${list([...report.notExecuted.loops, ...report.notExecuted.branches])}` : ' (--all lists them)'}`,
  );
  for (const warning of report.warnings) out.push(`warning: ${warning}`);
  // Tables are pushed whole (several lines); a one-line entry is prose, wrapped on a terminal.
  return out.map((entry) => (entry.includes('\n') ? entry : wrap(entry, proseWidth, '  '))).join('\n');
}

/**
 * What `taint -o FILE` prints instead of the tables (which run to thousands of lines on a big
 * program): where the report went, the parameters and what they drive, and the warnings.
 */
/** The constant class (issue 24, cause 5): proven loops and pruned functions, which filters leave out. */
function constantLine(report: TaintReport): string {
  const c = report.constant;
  return `constant: ${c.provenLoops} loop(s) proven before the run (fixed trip count, label-free exits), ${c.observedLoops} more seen constant in this run; pruned: ${c.staticFunctions} function(s) statically (no loops, or only proven loops), ${c.dynamicFunctions} dynamically (loop exits carry no parameter)`;
}

export function renderTaintSummary(report: TaintReport, file: string): string {
  const dependent = <Row extends { params: string[] }>(rows: Row[]) =>
    rows.filter((row) => row.params.length > 0).length;
  const executedLoops = report.loops.filter((l) => l.executed);
  const out = [
    `wrote ${file}: the taint report of ${report.module}`,
    `parameters: ${list(report.parameters)}`,
    `${dependent(executedLoops)} of ${executedLoops.length} executed loop(s), ${dependent(report.functions)} of ${report.functions.length} function(s) and ${dependent(report.branches)} branch(es) depend on a parameter`,
    `prunable (drive no loop): ${list(report.prunable)}`,
    constantLine(report),
    ...report.warnings.map((warning) => `warning: ${warning}`),
    'the tables: run without -o, or read the file with `taintlens model --taint` / jq',
  ];
  return out.join('\n');
}
