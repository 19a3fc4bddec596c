// The taint prior (Perf-Taint §4.5): which terms a call path's model may contain, from the
// parameters its function's loops depend on and how those loops nest.
//
// A dependency expression such as "a*b + c" is a sum of monomials; nesting multiplies, siblings
// add. A term of the model ranges over a set of parameters; it is allowed when that set is the
// parameter set of some loop level of the function:
//   - With the loop nests of the function (the report's `loops`, linked by `parent`): every
//     loop L contributes the parameters on the path from its outermost loop down to L. For
//     `for a { work; for b { work } }` that is {a} and {a,b}: cost a·(x + y·b) = x·a + y·a·b.
//     An inner-only term {b} cannot arise from this nest and is not allowed.
//   - A monomial the loops do not explain (the work sits in a callee, or the report lists no
//     loops) allows every non-empty subset of its parameters, since any level of an unknown nest
//     may carry work of its own.
// Parameters never multiplied together in the expression are never combined into one term; a
// pruned function, or one whose dependency is null, is constant. Parameters the measurements do
// not vary are left out. A function absent from the report is not restricted at all.

/**
 * The modeler's view of a taint report: only what the prior needs, read from a taint report file
 * by src/io/taint.ts (the report itself is src/taint/report.ts's TaintReport).
 */
export interface TaintViewFunction {
  name: string;
  params: string[];
  /** Parsed dependency expression: a sum of monomials, each a list of parameter names. */
  monomials: string[][] | null;
  dependency: string | null;
  pruned: string | null;
}

export interface TaintViewLoop {
  id: string;
  function: string;
  parent: string | null;
  params: string[];
}

/** A conditional branch whose condition carries parameters (algorithm selection). */
export interface TaintViewBranch {
  function: string;
  params: string[];
}

/** The modeler's view of one taint report file. */
export interface TaintView {
  source: string;
  parameters: string[];
  functions: Map<string, TaintViewFunction>;
  loops: TaintViewLoop[];
  /** Optional in the file; empty when absent. */
  branches: TaintViewBranch[];
}

export type PriorStatus = 'restricted' | 'constant' | 'missing';

export interface CallpathPrior {
  /** The function the call path ends in. */
  function: string;
  status: PriorStatus;
  /** Measured parameters the code may depend on. */
  params: string[];
  /** Allowed parameter sets of terms, as bit masks over the series' parameters. */
  allowed: number[];
  /** The allowed sets came (at least partly) from loop nests rather than the expression alone. */
  fromLoops: boolean;
  /**
   * Measured parameters of the function's own loop nests: what its exclusive cost can show (work in
   * callees shows in the callees' call paths). All of `params` when the report lists no loops.
   */
  ownParams: string[];
  /** Measured parameters that reach the function's conditional branches. */
  branchParams: string[];
  /** Per series parameter: the loop depth over it in the dependency (0 when it is not there). */
  degrees: number[];
  /**
   * Per monomial of the dependency (one loop nest's innermost level), the loop depth over each
   * series parameter: a term x^e·log2^g(x)·… of its cost has e + g ≤ that depth in every
   * parameter (each loop level multiplies by at most x, or by log2 x). Empty: no bound known.
   */
  depths?: number[][];
}

/**
 * Parses "n*p + n", "a*(b + c)", "n^2*p" into monomials (sets of parameter names). Names listed in
 * `known` are matched first, longest first, so parameter names with operator characters survive.
 */
export function parseDependency(text: string, known: readonly string[] = []): string[][] {
  return parseProducts(text, known).map((monomial) => [...new Set(monomial)].sort());
}

/**
 * The loop depth over each parameter in a dependency expression: the largest number of times it
 * appears in one monomial (`t*n*n + n` → t: 1, n: 2). It bounds the polynomial degree of the
 * cost in that parameter when every loop's trip count is linear in it.
 */
export function dependencyDegrees(text: string, known: readonly string[] = []): Map<string, number> {
  const degrees = new Map<string, number>();
  for (const monomial of parseProducts(text, known)) {
    const counts = new Map<string, number>();
    for (const name of monomial) counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const [name, count] of counts) degrees.set(name, Math.max(degrees.get(name) ?? 0, count));
  }
  return degrees;
}

/**
 * Per monomial of a dependency expression, how often each of `params` multiplies in it
 * (`t*n*n + n` over [t, n] → [[1, 2], [0, 1]]); monomials that name none of them are left out.
 */
export function dependencyDepths(text: string, params: readonly string[], known: readonly string[] = []): number[][] {
  const depths = new Map<string, number[]>();
  for (const monomial of parseProducts(text, known)) {
    const depth = params.map((p) => monomial.filter((name) => name === p).length);
    if (depth.some((d) => d > 0)) depths.set(depth.join(','), depth);
  }
  return [...depths.values()];
}

/** The monomials of a dependency expression, each with its parameters as often as they multiply. */
function parseProducts(text: string, known: readonly string[]): string[][] {
  const names = [...known].filter((name) => name !== '').sort((a, b) => b.length - a.length);
  const tokens: string[] = [];
  for (let at = 0; at < text.length;) {
    if (/\s/.test(text[at]!)) {
      at++;
      continue;
    }
    const name = names.find(
      (candidate) => text.startsWith(candidate, at) && !/[\w$]/.test(text[at + candidate.length] ?? ''),
    );
    if (name) {
      tokens.push(`@${name}`);
      at += name.length;
      continue;
    }
    const match = /^(?:[A-Za-z_$][\w$.:]*|\d+(?:\.\d+)?|\*\*|[-+*^()·×]|\S)/.exec(text.slice(at))!;
    tokens.push(/^[A-Za-z_$]/.test(match[0]) ? `@${match[0]}` : match[0]);
    at += match[0].length;
  }
  let position = 0;
  const peek = () => tokens[position];
  const fail = (what: string): never => {
    throw new Error(`${what} in dependency "${text}"`);
  };
  // sum := product (('+' | '-') product)*; product := power (('*' | '·' | '×')? power)*; power := atom ('^' number)?
  const sum = (): string[][] => {
    let result = product();
    while (peek() === '+' || peek() === '-') {
      position++;
      result = result.concat(product());
    }
    return result;
  };
  const product = (): string[][] => {
    let result = power();
    for (;;) {
      const token = peek();
      if (token === '*' || token === '·' || token === '×') {
        position++;
        result = multiply(result, power());
      } else if (token !== undefined && (token === '(' || /^[@\d]/.test(token))) {
        result = multiply(result, power());
      } else {
        return result;
      }
    }
  };
  const power = (): string[][] => {
    const base = atom();
    if (peek() === '^' || peek() === '**') {
      position++;
      const exponent = peek();
      if (exponent === undefined || !/^\d/.test(exponent)) fail('expected a number after ^');
      position++;
      let result = base;
      for (let k = 1; k < Math.min(Math.round(Number(exponent)), 8); k++) result = multiply(result, base);
      return result;
    }
    return base;
  };
  const atom = (): string[][] => {
    const token = peek();
    if (token === undefined) return fail('unexpected end');
    position++;
    if (token === '(') {
      const inner = sum();
      if (peek() !== ')') fail('missing )');
      position++;
      return inner;
    }
    if (/^\d/.test(token)) return [[]];
    if (token.startsWith('@')) return [[token.slice(1)]];
    return fail(`unexpected "${token}"`);
  };
  const result = sum();
  if (position < tokens.length) fail(`unexpected "${tokens[position]!.replace(/^@/, '')}"`);
  return result;
}

function multiply(a: string[][], b: string[][]): string[][] {
  const result: string[][] = [];
  for (const x of a) for (const y of b) result.push([...x, ...y]);
  return result;
}

/** The function a call path ends in: "main->solve" → "solve". */
export function functionOf(callpath: string): string {
  const parts = callpath.split('->');
  return parts[parts.length - 1]!.trim();
}

export function priorFor(report: TaintView, callpath: string, params: readonly string[]): CallpathPrior {
  const name = functionOf(callpath);
  const fn = report.functions.get(name);
  const measured = (names: Iterable<string>) => {
    const set = new Set(names);
    return params.filter((p) => set.has(p));
  };
  const branchParams = measured(
    report.branches.filter((branch) => branch.function === name).flatMap((branch) => branch.params),
  );
  const unrestricted = {
    params: [],
    allowed: [],
    fromLoops: false,
    ownParams: [],
    branchParams,
    degrees: params.map(() => 0),
    depths: [],
  };
  if (!fn) return { function: name, status: 'missing', ...unrestricted };
  const index = new Map(params.map((p, l) => [p, l]));
  const maskOf = (names: readonly string[]) =>
    names.reduce((mask, p) => (index.has(p) ? mask | (1 << index.get(p)!) : mask), 0);
  if (fn.pruned !== null || fn.monomials === null) return { function: name, status: 'constant', ...unrestricted };
  const monomials = [...new Set(fn.monomials.map(maskOf).filter((mask) => mask !== 0))];
  if (monomials.length === 0) return { function: name, status: 'constant', ...unrestricted };

  // Parameter sets of the loop levels of this function.
  const loops = report.loops.filter((loop) => loop.function === name);
  const byId = new Map(loops.map((loop) => [loop.id, loop]));
  const levelSets = new Set<number>();
  for (const loop of loops) {
    let mask = 0;
    const seen = new Set<string>();
    for (
      let current: TaintViewLoop | undefined = loop;
      current && !seen.has(current.id);
      current = current.parent === null ? undefined : byId.get(current.parent)
    ) {
      seen.add(current.id);
      mask |= maskOf(current.params);
    }
    if (mask !== 0) levelSets.add(mask);
  }
  const allowed = new Set<number>();
  let fromLoops = false;
  for (const monomial of monomials) {
    if (levelSets.has(monomial)) {
      // The nest explains this monomial: its levels (prefixes) inside the monomial are allowed.
      fromLoops = true;
      for (const level of levelSets) if ((level & monomial) === level) allowed.add(level);
    } else {
      for (let subset = monomial; subset > 0; subset = (subset - 1) & monomial) allowed.add(subset);
    }
  }
  const union = monomials.reduce((a, b) => a | b, 0);
  const dependsOn = params.filter((_, l) => union & (1 << l));
  const own = [...levelSets].reduce((a, b) => a | b, 0);
  return {
    function: name,
    status: 'restricted',
    params: dependsOn,
    allowed: [...allowed].sort((a, b) => a - b),
    fromLoops,
    ownParams: report.loops.length === 0 ? dependsOn : params.filter((_, l) => own & (1 << l)),
    branchParams,
    degrees: degreesOf(fn.dependency, report.parameters, params),
    depths: depthsOf(fn.dependency, report.parameters, params),
  };
}

function depthsOf(dependency: string | null, known: readonly string[], params: readonly string[]): number[][] {
  if (dependency === null) return [];
  try {
    return dependencyDepths(dependency, params, known);
  } catch {
    return [];
  }
}

function degreesOf(dependency: string | null, known: readonly string[], params: readonly string[]): number[] {
  if (dependency === null) return params.map(() => 0);
  try {
    const degrees = dependencyDegrees(dependency, known);
    return params.map((p) => degrees.get(p) ?? 0);
  } catch {
    return params.map(() => 0);
  }
}
