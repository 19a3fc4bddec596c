// Plain-data form of a function's data flow, written by the sampling pass (instrument/passes/
// sample.ts) into the site table and read by the blame analysis: no Binaryen here.
//
// A fact says "the values of `sources` flow into `target`", in the code region `region` (the
// straight-line region of the sampling pass the consuming instruction belongs to). Sources are
// locals (`l3`) and call results (`c5`, the function's 5th call site; `g0` for its first
// memory.grow). Address operands and branch conditions are not data flow: an index or a loop
// counter does not own the value it helps to place (it gets implicit blame, blame-relations.ts).
// These live in instrument/ because the sampling pass both writes them and evaluates the relations
// over them (which store addresses a sample records); the blame analysis reads them from here.

/** An i32 address expression: a constant, a local at region start, or an operation; null = unknown. */
export type AddressAst =
  number | { l: number } | { op: AddressOp; a: AddressAst; b: AddressAst } | { ld: AddressAst; off: number } | null;
export type AddressOp = 'add' | 'sub' | 'mul' | 'shl' | 'shr_u' | 'shr_s' | 'and' | 'or' | 'xor';

export type FlowTarget =
  | { kind: 'local'; local: number }
  | {
      kind: 'store';
      ptr: AddressAst;
      offset: number;
      bytes: number;
      /** Base-pointer local as written (before substitution). */ base?: number | null;
    }
  | { kind: 'global'; name: string }
  | { kind: 'return' }
  | { kind: 'arg'; call: number; arg: number }
  | { kind: 'cond' };

export interface FlowFact {
  region: number;
  target: FlowTarget;
  sources: string[];
}

export interface FunctionFacts {
  /** Site-table index of the function. */
  index: number;
  params: number;
  /** Local names from the name section, by local index ('' where none). */
  localNames: string[];
  facts: FlowFact[];
  /** Global region ids of this function's regions, with their innermost natural loop (-1: none) and instruction count. */
  regions: Array<{ id: number; loop: number; instructions: number }>;
  /** Per natural loop: its parent loop (-1: none). */
  loopParents: number[];
  /** Calls by call index: the callee's site-table index (null: import or indirect). */
  callees: Array<number | null>;
  /** memory.grow sites of this function, by global grow-site id. */
  grows: number[];
  /** Locals holding the shadow stack pointer (read from it, or derived by arithmetic). */
  stackLocals: number[];
}

export function localSource(local: number): string {
  return `l${local}`;
}

export function callSource(call: number): string {
  return `c${call}`;
}

export function growSource(grow: number): string {
  return `g${grow}`;
}

/** Locals an address expression reads. */
export function addressLocals(ast: AddressAst, into: Set<number> = new Set()): Set<number> {
  if (ast === null || typeof ast === 'number') return into;
  if ('l' in ast) into.add(ast.l);
  else if ('ld' in ast) addressLocals(ast.ld, into);
  else {
    addressLocals(ast.a, into);
    addressLocals(ast.b, into);
  }
  return into;
}

/**
 * The local that holds the base pointer of an address: the address itself, or in a sum the operand
 * that is not a scaled index or a constant. Null when the base was loaded from memory or is unknown.
 */
export function baseLocal(ast: AddressAst): number | null {
  if (ast === null || typeof ast === 'number') return null;
  if ('l' in ast) return ast.l;
  if ('ld' in ast) return null;
  if (ast.op !== 'add' && ast.op !== 'sub') return null;
  const indexLike = (x: AddressAst) =>
    x === null || typeof x === 'number' || ('op' in x && (x.op === 'mul' || x.op === 'shl'));
  if (ast.op === 'add' && indexLike(ast.a) && !indexLike(ast.b)) return baseLocal(ast.b);
  return baseLocal(ast.a) ?? (ast.op === 'add' ? baseLocal(ast.b) : null);
}

/** The memory load the base pointer came from (`p->field[i]`): its own address expression and offset. */
export function baseLoad(ast: AddressAst): { ld: AddressAst; off: number } | null {
  if (ast === null || typeof ast === 'number' || 'l' in ast) return null;
  if ('ld' in ast) return ast;
  if (ast.op !== 'add') return null;
  return baseLoad(ast.a) ?? baseLoad(ast.b);
}
