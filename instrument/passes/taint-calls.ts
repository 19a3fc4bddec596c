// Calls in the taint pass. Between defined functions labels travel in globals: argument k's label
// in taintlens$arg<k>, the caller's control label in taintlens$ctl, the result label back in
// taintlens$ret (uniform for direct, indirect and exported calls), and the call enters the
// callee's calling context (taint-sinks.ts). A host import follows its library rule: result label
// (union of the arguments by default), named sources written to the result or to memory, and the
// cost sink of a library call whose volume depends on parameters.
import binaryen from 'binaryen';
import { Call, Id, childSlots, idOf, type Expr } from '../ir.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';
import { ARG_GLOBAL, CTL_GLOBAL, RET_GLOBAL, type ImportRule } from './taint-layout.js';
import {
  copyOperand,
  isDead,
  operandLabel,
  orAll,
  orZero,
  type FunctionTaint,
  type ModuleTaint,
} from './taint-function.js';
import { flush, newImportSite, recordSite } from './taint-sink-records.js';

/** Shadow code around a call: `pre` before it, `post(shadow local of its result, or null)` after it. */
export interface CallShadow {
  pre: Expr[];
  post: (resultShadow: number | null) => Expr[];
}

/** A call statement (or a dropped call) with its shadow code. */
export function callStmt(c: FunctionTaint, s: Expr, call: Expr): Expr[] {
  const { pre, post } = callShadow(c, call);
  return [...pre, s, ...post(null)];
}

export function callShadow(c: FunctionTaint, call: Expr): CallShadow {
  const { module } = c.m;
  const i32 = binaryen.i32;
  const id = idOf(call);
  const operands = childSlots(call).map((s) => s.expr);
  const args = id === Id.CallIndirect ? operands.slice(0, -1) : operands;
  const argLabels = args.map((a) => operandLabel(c, a));
  const target = id === Id.Call ? Call.getTarget(call) : null;
  if (target === MEMORY_GROW_FUNCTION) {
    // memory.grow, rewritten by the layout: the result depends on the delta.
    return { pre: [], post: (sv) => (sv === null ? [] : [module.local.set(sv, orZero(c, argLabels[0] ?? null))]) };
  }
  const siteCall = c.fn.site.calls[c.callIndex++] ?? null;
  if (isDead(call)) return { pre: [], post: () => [] };
  const hostKey = target !== null ? hostCallKey(c.m, target) : null;
  if (target !== null && hostKey !== null) return importShadow(c, call, target, hostKey, args, argLabels, siteCall);
  const pre: Expr[] = argLabels.map((label, k) => module.global.set(ARG_GLOBAL(k), orZero(c, label)));
  if (c.m.branchFlow) pre.push(module.global.set(CTL_GLOBAL, module.local.get(c.control.label, i32)));
  pre.push(...c.sinks.announce(c.callIndex - 1));
  if (id === Id.CallIndirect) {
    // A table may hold an import, which does not set the result label: default to the union.
    pre.push(
      module.global.set(
        RET_GLOBAL,
        orZero(
          c,
          orAll(
            c,
            args.map((a) => operandLabel(c, a)),
          ),
        ),
      ),
    );
  }
  // An allocator's address carries no label (the sizes asked for earlier shaped it, not this value's data);
  // a functional math routine's result carries its arguments' labels, as DFSan's ABI list has it.
  const resultLabel = () =>
    target !== null && c.m.allocators.has(target)
      ? module.i32.const(0)
      : target !== null && c.m.functional.has(target)
        ? orZero(
            c,
            orAll(
              c,
              args.map((a) => operandLabel(c, a)),
            ),
          )
        : module.global.get(RET_GLOBAL, i32);
  return {
    pre,
    post: (sv) => (sv === null ? [] : [module.local.set(sv, resultLabel())]),
  };
}

/** A call of `target` that goes to the host or to the pipeline's own helpers: its library key (`module.name`), else null. */
export function hostCallKey(m: ModuleTaint, target: string): string | null {
  const imported = m.importInfo.get(target);
  if (imported) return imported.key;
  return !m.defined.has(target) || target.startsWith('taintlens$') ? target : null;
}

/** The library rule of a host call: by its import key, else by its internal name. */
export function libraryRule(m: ModuleTaint, key: string, target: string): ImportRule | undefined {
  return m.options.library?.[key] ?? m.options.library?.[target];
}

function importShadow(
  c: FunctionTaint,
  call: Expr,
  target: string,
  key: string,
  args: Expr[],
  argLabels: Array<Expr | null>,
  siteCall: string | null,
): CallShadow {
  const { module } = c.m;
  const rule = libraryRule(c.m, key, target);
  // A host function may call back into an export: that entry comes from outside, not from this call site.
  const pre: Expr[] = [c.sinks.external()];
  const postFixed: Expr[] = [];
  // Calls that may not return (process exit, aborts) lose this frame's sinks: flush first.
  if (/^(wasi_\w+\.proc_exit|env\.abort|env\.exit)$/.test(key)) pre.push(...flush(c, true));
  let resultLabel: Expr | null = rule?.result === 'none' ? null : orAll(c, argLabels);
  for (const source of rule?.sources ?? []) {
    const bit = 1 << c.m.nameBits.get(source.label)!;
    if (source.result) resultLabel = orAll(c, [resultLabel, module.i32.const(bit)]);
    if (source.arg !== undefined && args[source.arg]) {
      const ptr = args[source.arg]!;
      const bytesArg = source.bytesArg !== undefined ? args[source.bytesArg] : undefined;
      const label = () =>
        orZero(
          c,
          orAll(c, [
            module.i32.const(bit),
            ...(source.withArgs ?? []).map((k) => (args[k] ? operandLabel(c, args[k]!) : null)),
          ]),
        );
      if (bytesArg) {
        postFixed.push(c.m.shadowMemory.fill(c.codegen, copyOperand(c, ptr), label(), copyOperand(c, bytesArg)));
      } else {
        postFixed.push(...c.m.shadowMemory.store(c.codegen, ptr, 0, source.bytes ?? 4, label()));
      }
    }
  }
  if (rule?.cost) {
    const local = newImportSite(c, call, key, rule.cost.params ?? [], siteCall);
    // Fresh label expressions: argLabels already sit in the result label, and a tree must not share nodes.
    const label = orZero(
      c,
      orAll(
        c,
        (rule.cost.args ?? []).map((k) => (args[k] ? operandLabel(c, args[k]!) : null)),
      ),
    );
    pre.push(recordSite(c, local, label));
  }
  const resultValue = resultLabel;
  return {
    pre,
    post: (sv) => [...postFixed, ...(sv === null ? [] : [module.local.set(sv, orZero(c, resultValue))])],
  };
}
