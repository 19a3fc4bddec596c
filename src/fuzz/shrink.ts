// Shrinks a module on which a variant fails, keeping the failure (same status, same aspect): greedy
// delta debugging with binaryen.js. Each round tries, and keeps what still fails:
//   1. dropping exports (then unused functions, globals and segments go with them),
//   2. replacing a whole function body by `unreachable`,
//   3. replacing single expressions, outermost first, by a constant zero / nop, or by one of their
//      own children of the same type,
// until a round changes nothing or the time budget runs out.
import binaryen from 'binaryen';
import { readModule, SUPPORTED_FEATURES } from '../../instrument/module-io.js';
import { childSlots, Func, GlobalGet, GlobalSet, Id, idOf, typeOf, i64Const, type Expr } from '../../instrument/ir.js';
import { definedFunctions } from '../../instrument/memory-layout.js';
import { stillFails, type Variant, type VariantOutcome } from './differential.js';
import { HANG_LIMIT_EXPORT } from './harness.js';

export interface ShrinkResult {
  bytes: Uint8Array;
  trials: number;
  accepted: number;
}

type Edit = (module: binaryen.Module) => boolean;

export function shrink(
  bytes: Uint8Array,
  seed: number,
  variant: Variant,
  outcome: VariantOutcome,
  budgetMs = 60_000,
): ShrinkResult {
  const deadline = Date.now() + budgetMs;
  let best = bytes;
  let trials = 0;
  let accepted = 0;
  const attempt = (edit: Edit): boolean => {
    if (Date.now() > deadline) return false;
    const candidate = applyEdit(best, edit);
    if (!candidate || candidate.length === 0) return false;
    trials++;
    if (!stillFails(candidate, seed, variant, outcome)) return false;
    best = candidate;
    accepted++;
    return true;
  };
  // Start from a cleaned-up module, if it still fails.
  attempt((m) => (m.runPasses(['remove-unused-module-elements']), true));
  for (let round = 0; round < 8 && Date.now() < deadline; round++) {
    const before = accepted;
    for (const name of exportNames(best)) attempt((m) => removeExport(m, name));
    for (let f = 0; f < functionCount(best); f++) attempt((m) => replaceBody(m, f));
    for (let f = 0; f < functionCount(best) && Date.now() < deadline; f++) {
      // Expression indices shift as the tree shrinks: walk forward, retrying the same index after a success.
      for (let i = 0; i < expressionCount(best, f) && Date.now() < deadline; i++) {
        for (const kind of ['zero', 'child'] as const) {
          if (attempt((m) => replaceExpression(m, f, i, kind))) break;
        }
      }
    }
    attempt(
      (m) => (m.runPasses(['remove-unused-module-elements', 'vacuum', 'remove-unused-names', 'merge-blocks']), true),
    );
    if (accepted === before) break;
  }
  return { bytes: best, trials, accepted };
}

function withModule<T>(bytes: Uint8Array, use: (module: binaryen.Module) => T): T | null {
  let module: binaryen.Module;
  try {
    module = readModule(bytes, 'shrink.wasm');
  } catch {
    return null;
  }
  try {
    return use(module);
  } catch {
    return null;
  } finally {
    module.dispose();
  }
}

function applyEdit(bytes: Uint8Array, edit: Edit): Uint8Array | null {
  return withModule(bytes, (module) => {
    if (!edit(module)) return null;
    module.setFeatures(SUPPORTED_FEATURES);
    if (!module.validate()) return null;
    const out = module.emitBinary();
    return WebAssembly.validate(out as Uint8Array<ArrayBuffer>) ? out : null;
  });
}

function exportNames(bytes: Uint8Array): string[] {
  return (
    withModule(bytes, (module) => {
      const names: string[] = [];
      for (let i = 0; i < module.getNumExports(); i++) {
        const name = binaryen.getExportInfo(module.getExportByIndex(i)).name;
        if (name !== HANG_LIMIT_EXPORT) names.push(name);
      }
      return names;
    }) ?? []
  );
}

function removeExport(module: binaryen.Module, name: string): boolean {
  module.removeExport(name);
  module.runPasses(['remove-unused-module-elements']);
  return true;
}

function functionCount(bytes: Uint8Array): number {
  return withModule(bytes, (module) => definedFunctions(module).length) ?? 0;
}

function replaceBody(module: binaryen.Module, index: number): boolean {
  const func = definedFunctions(module)[index];
  if (func === undefined) return false;
  const body = Func.getBody(func);
  if (idOf(body) === Id.Unreachable || touchesGlobals(body, hangGlobals(module))) {
    // Bodies that check the hang limit may go whole (to `unreachable`: nothing runs), except the initializer's.
    if (idOf(body) === Id.Unreachable || isHangInitializer(module, func)) return false;
  }
  Func.setBody(func, module.unreachable());
  return true;
}

function isHangInitializer(module: binaryen.Module, func: number): boolean {
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.name === HANG_LIMIT_EXPORT && info.value === Func.getName(func)) return true;
  }
  return false;
}

/** Expressions of a function in preorder (outermost first). */
function expressions(body: Expr): Array<{ expr: Expr; replace: (e: Expr) => void }> {
  const out: Array<{ expr: Expr; replace: (e: Expr) => void }> = [];
  const walk = (expr: Expr, replace: (e: Expr) => void) => {
    out.push({ expr, replace });
    for (const slot of childSlots(expr)) walk(slot.expr, (e) => slot.replace(e));
  };
  walk(body, () => undefined);
  return out.slice(1);
}

function expressionCount(bytes: Uint8Array, index: number): number {
  return (
    withModule(bytes, (module) => {
      const func = definedFunctions(module)[index];
      return func === undefined ? 0 : expressions(Func.getBody(func)).length;
    }) ?? 0
  );
}

/**
 * Globals written by the hang-limit initializer: the counters that bound every loop and call. An edit
 * that removes a check or a decrement of one could make the module run forever, so none may touch them.
 */
function hangGlobals(module: binaryen.Module): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.name !== HANG_LIMIT_EXPORT || info.kind !== binaryen.ExternalFunction) continue;
    const visit = (expr: Expr) => {
      if (idOf(expr) === Id.GlobalSet) names.add(GlobalSet.getName(expr));
      for (const slot of childSlots(expr)) visit(slot.expr);
    };
    visit(Func.getBody(module.getFunction(info.value)));
  }
  return names;
}

function touchesGlobals(expr: Expr, names: Set<string>): boolean {
  const id = idOf(expr);
  if (
    (id === Id.GlobalGet && names.has(GlobalGet.getName(expr))) ||
    (id === Id.GlobalSet && names.has(GlobalSet.getName(expr)))
  )
    return true;
  return childSlots(expr).some((slot) => touchesGlobals(slot.expr, names));
}

function replaceExpression(module: binaryen.Module, f: number, index: number, kind: 'zero' | 'child'): boolean {
  const func = definedFunctions(module)[f];
  if (func === undefined) return false;
  const target = expressions(Func.getBody(func))[index];
  if (!target) return false;
  if (touchesGlobals(target.expr, hangGlobals(module))) return false;
  const type = typeOf(target.expr);
  if (kind === 'child') {
    const child = childSlots(target.expr).find((slot) => typeOf(slot.expr) === type);
    if (!child) return false;
    target.replace(child.expr);
    return true;
  }
  const id = idOf(target.expr);
  if (id === Id.Nop || id === Id.Const) return false;
  const replacement = zero(module, type);
  if (replacement === null) return false;
  target.replace(replacement);
  return true;
}

function zero(module: binaryen.Module, type: number): Expr | null {
  if (type === binaryen.none) return module.nop();
  if (type === binaryen.i32) return module.i32.const(0);
  if (type === binaryen.i64) return i64Const(module, 0n);
  if (type === binaryen.f32) return module.f32.const(0);
  if (type === binaryen.f64) return module.f64.const(0);
  if (type === binaryen.unreachable) return module.unreachable();
  return null;
}
