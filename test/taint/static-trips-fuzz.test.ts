// Soundness of the constant trip counts against real runs: every loop of fuzz modules (Binaryen
// -ttf corpus and our generator) gets entry and header counters in exported globals; each export is
// run alone (fresh instance, the fuzz harness's arguments), and for every call that did not trap, a
// loop with a proven trip count T must have run headers = entries × (T + 1 if top-tested).
import { test, expect } from 'vitest';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import binaryen from 'binaryen';
import { readModule } from '../../instrument/module-io.js';
import { analyzeModule } from '../../instrument/sites.js';
import { Func, Loop, childSlots, typeOf, type Expr } from '../../instrument/ir.js';
import { exportedFunctions } from '../../instrument/exports.js';
import { makePlan, observe } from '../../src/fuzz/harness.js';
import { generate, sourceFor } from '../../src/fuzz/sources.js';

function counted(bytes: Uint8Array, name: string) {
  const m = readModule(bytes, name);
  try {
    const { table, functions } = analyzeModule(m);
    const siteOf = new Map<Expr, string>();
    for (const f of functions) f.loopExprs.forEach((e, i) => siteOf.set(e, f.site.loops[i]!));
    const proven = table.loops.filter((l) => l.staticTrips !== null && l.staticTrips !== undefined);
    if (proven.length === 0) return null;
    for (const l of table.loops) {
      for (const g of [`e_${l.id}`, `h_${l.id}`]) {
        m.addGlobal(g, binaryen.i32, true, m.i32.const(0));
        m.addGlobalExport(g, g);
      }
    }
    const inc = (g: string) => m.global.set(g, m.i32.add(m.global.get(g, binaryen.i32), m.i32.const(1)));
    const rewrite = (e: Expr): Expr => {
      for (const slot of childSlots(e)) {
        const r = rewrite(slot.expr);
        if (r !== slot.expr) slot.replace(r);
      }
      const id = siteOf.get(e);
      if (!id) return e;
      const body = Loop.getBody(e);
      Loop.setBody(e, m.block(null, [inc(`h_${id}`), body], typeOf(body)));
      return m.block(null, [inc(`e_${id}`), e], typeOf(e));
    };
    for (const f of functions) {
      const body = Func.getBody(f.func);
      if (!body) continue;
      const r = rewrite(body);
      if (r !== body) Func.setBody(f.func, r);
    }
    return { proven, signatures: exportedFunctions(m), bytes: m.emitBinary() };
  } finally {
    m.dispose();
  }
}

test('proven trip counts agree with counted runs of fuzz modules', { timeout: 240_000 }, () => {
  const corpus = join(import.meta.dirname, '../fuzz/corpus');
  const cases: Array<[string, Uint8Array]> = readdirSync(corpus)
    .filter((f) => f.endsWith('.wasm'))
    .slice(0, 100)
    .map((f) => [f, readFileSync(join(corpus, f))]);
  for (let seed = 900_000; seed < 900_060; seed++) cases.push([`gen-${seed}`, generate(sourceFor('gen', seed), seed)]);
  let checked = 0;
  const mismatches: string[] = [];
  for (const [name, bytes] of cases) {
    const c = counted(bytes, name);
    if (!c) continue;
    const module = new WebAssembly.Module(c.bytes as Uint8Array<ArrayBuffer>);
    const plan = makePlan(c.signatures, 1);
    for (const call of plan.calls) {
      const seen = observe(module, { calls: [call], resetHangLimit: plan.resetHangLimit });
      if (seen.instantiate !== 'ok' || seen.events.some((e) => e.includes('trap'))) continue;
      for (const l of c.proven) {
        const entries = Number(seen.globals[`e_${l.id}`]);
        const headers = Number(seen.globals[`h_${l.id}`]);
        if (entries > 0) checked++;
        if (headers !== entries * (l.staticTrips! + (l.topTested ? 1 : 0))) {
          mismatches.push(
            `${name} ${call.name}: ${l.id} (${l.function}) proven ${l.staticTrips}, ${entries} entries, ${headers} headers`,
          );
        }
      }
    }
  }
  expect(mismatches).toEqual([]);
  expect(checked).toBeGreaterThan(100);
});
