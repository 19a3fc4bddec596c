// Which functions a measurement mode makes regions:
// - none: no instrumentation (the whole run is timed, nothing else);
// - full: every function;
// - default: Score-P-like — from one profiling run (the loop profiler's exact counts), leave out
//   functions called very often that do little per visit, and say so;
// - selective: the functions the taint report finds parameter-dependent, plus the functions on the
//   call paths leading to them (Perf-Taint §4);
// - filter:FILE: a Score-P filter file (as `taint --scorep-filter` writes it).
import { readInputText } from '../util/read-file.js';
import { fileError } from '../util/errors.js';
import type { LoopProfile } from '../profile/loop-profile.js';
import type { TaintFacts } from './select.js';

export type MeasureMode = 'none' | 'full' | 'default' | 'selective' | `filter:${string}`;

export const MEASURE_MODES = ['none', 'full', 'default', 'selective', 'filter:FILE'] as const;

export function isMeasureMode(text: string): text is MeasureMode {
  return (
    ['none', 'full', 'default', 'selective'].includes(text) ||
    (text.startsWith('filter:') && text.length > 'filter:'.length)
  );
}

/** The functions a mode instruments, with what it left out and why. */
export interface RegionSelection {
  mode: MeasureMode;
  /** Region function names; null: none at all (mode none). */
  functions: string[] | null;
  rule: string;
  /** Functions left out by the rule (default, selective, filter), with the reason. */
  dropped: Array<{ name: string; why: string }>;
}

/** Score-P's rule of thumb (scorep-score): often visited, little work per visit. */
export const DEFAULT_RULE = { minVisits: 1000, maxInstructionsPerVisit: 500 } as const;

export function selectFull(all: string[]): RegionSelection {
  return { mode: 'full', functions: all, rule: 'every function', dropped: [] };
}

export function selectDefault(profile: LoopProfile, all: string[], rule = DEFAULT_RULE): RegionSelection {
  const byName = new Map(profile.functions.map((f) => [f.name, f]));
  const dropped: RegionSelection['dropped'] = [];
  const functions = all.filter((name) => {
    const f = byName.get(name);
    if (!f || f.calls < rule.minVisits) return true;
    const perVisit = f.inclusiveInstructions / f.calls;
    if (perVisit > rule.maxInstructionsPerVisit) return true;
    dropped.push({ name, why: `${f.calls} visits, ${perVisit.toFixed(1)} instructions per visit` });
    return false;
  });
  return {
    mode: 'default',
    functions,
    dropped,
    rule: `leave out functions with ≥ ${rule.minVisits} visits and ≤ ${rule.maxInstructionsPerVisit} instructions per visit (inclusive) in one profiling run`,
  };
}

export function selectSelective(report: TaintFacts, all: string[]): RegionSelection {
  const keep = new Set<string>();
  for (const f of report.functions) {
    if (f.dependency === null) continue;
    keep.add(f.name);
    for (const caller of f.callpath ?? []) keep.add(caller);
  }
  const functions = all.filter((name) => keep.has(name));
  return {
    mode: 'selective',
    functions,
    rule: 'parameter-dependent functions (taint report) and the functions on the call paths leading to them',
    dropped: all
      .filter((name) => !keep.has(name))
      .map((name) => ({ name, why: 'no parameter-dependent work beneath it' })),
  };
}

export function selectFiltered(file: string, all: string[]): RegionSelection {
  const rules = parseScorepFilter(readInputText(file), file);
  const functions = all.filter((name) => filterIncludes(rules, name));
  const kept = new Set(functions);
  return {
    mode: `filter:${file}`,
    functions,
    rule: `Score-P filter ${file}`,
    dropped: all.filter((name) => !kept.has(name)).map((name) => ({ name, why: 'excluded by the filter' })),
  };
}

interface FilterRule {
  include: boolean;
  pattern: RegExp;
}

/** The region-name block of a Score-P filter file: INCLUDE/EXCLUDE rules, the last match wins. */
export function parseScorepFilter(text: string, file: string): FilterRule[] {
  const rules: FilterRule[] = [];
  let inside = false;
  let seen = false;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    if (line === 'SCOREP_REGION_NAMES_BEGIN') {
      inside = true;
      seen = true;
      return;
    }
    if (line === 'SCOREP_REGION_NAMES_END') {
      inside = false;
      return;
    }
    if (!inside) return;
    const match = /^(INCLUDE|EXCLUDE)(\s+MANGLED)?\s+(.+)$/.exec(line);
    if (!match)
      throw fileError(file, `line ${index + 1}: expected INCLUDE or EXCLUDE followed by region names, got '${line}'`);
    for (const name of match[3]!.split(/\s+/))
      rules.push({ include: match[1] === 'INCLUDE', pattern: globToRegExp(name) });
  });
  if (!seen) throw fileError(file, 'not a Score-P filter: no SCOREP_REGION_NAMES_BEGIN block');
  return rules;
}

function filterIncludes(rules: FilterRule[], name: string): boolean {
  let included = true;
  for (const rule of rules) if (rule.pattern.test(name)) included = rule.include;
  return included;
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
