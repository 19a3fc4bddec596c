// Value flow of the taint pass: a local or global written from a value takes the union of its
// operands' labels (a load: the labels of the bytes it reads; a call: the callee's result label,
// taint-calls.ts); a global write also joins the control label.
import { GlobalSet, Id, LocalSet, childSlots, idOf, type Expr } from '../ir.js';
import { controlLabel, isDead, operandLabel, orAll, orZero, shadowOf, type FunctionTaint } from './taint-function.js';
import { loadLabel, MEMORY_LOADS } from './taint-memory.js';
import { callShadow } from './taint-calls.js';
import { frameEntry } from './shadow-frame.js';

/** A `local.set` of a program local followed by the update of its shadow local. */
export function localSetStmt(c: FunctionTaint, s: Expr): Expr[] {
  const { module } = c.m;
  const index = LocalSet.getIndex(s);
  const value = LocalSet.getValue(s);
  if (LocalSet.isTee(s)) {
    // Not produced by flatten; handle conservatively as set + label.
    return [s];
  }
  const sv = shadowOf(c, index);
  const vid = idOf(value);
  if ((vid === Id.Call || vid === Id.CallIndirect) && c.m.foreign(value))
    return [s, module.local.set(sv, module.i32.const(0))];
  if (vid === Id.Call || vid === Id.CallIndirect) {
    const { pre, post } = callShadow(c, value);
    return [...pre, s, ...post(sv)];
  }
  if (isDead(value)) return [s];
  const label = valueLabel(c, value);
  const frameEntryCode = s === c.frameLabels?.rootSet ? frameEntry(c.codegen, c.m.shadowMemory, c.frameLabels) : [];
  return [s, module.local.set(sv, orZero(c, label)), ...frameEntryCode];
}

/** A `global.set` followed by the update of the global's shadow (value label joined with the control label). */
export function globalSetStmt(c: FunctionTaint, s: Expr): Expr[] {
  const { module } = c.m;
  const shadow = c.m.globalsShadow.get(GlobalSet.getName(s));
  if (!shadow) return [s];
  const label = orAll(c, [operandLabel(c, GlobalSet.getValue(s)), controlLabel(c)]);
  return [s, module.global.set(shadow, orZero(c, label))];
}

/** Label of a value expression in a flat `local.set` (not a call). */
function valueLabel(c: FunctionTaint, value: Expr): Expr | null {
  const id = idOf(value);
  if (id === Id.Const) return null;
  if (MEMORY_LOADS.has(id) && c.m.foreign(value)) return null;
  if (id === Id.LocalGet || id === Id.GlobalGet) return operandLabel(c, value);
  if (MEMORY_LOADS.has(id)) return loadLabel(c, value);
  // Every other value-producing instruction: the union of its operands' labels.
  return orAll(
    c,
    childSlots(value).map((slot) => operandLabel(c, slot.expr)),
  );
}
