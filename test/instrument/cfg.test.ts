// The CFG module on hand-written shapes compilers emit: exits written as a forward br_if over an
// unconditional exit, sequential loops emitted as a syntactic nest, if/else diamonds made of
// blocks, and the range-check diamond of a float-to-int conversion.
import { expect, test } from 'vitest';
import binaryen from 'binaryen';
import { wat } from '../helpers/wat.js';
import { FLOAT_TO_INT_DIAMOND, SEQUENTIAL_NEST } from '../helpers/loop-shapes.js';
import { buildCfg, branchRegion, exitedLoops, isTopTestedLoop, type Cfg } from '../../instrument/cfg.js';
import { Func, Id, idOf, LocalSet, Call, walkPostOrder, type Expr } from '../../instrument/ir.js';

function cfgOf(text: string, name = 'f'): { cfg: Cfg; body: Expr } {
  const module = binaryen.readBinary(wat(text));
  const body = Func.getBody(module.getFunction(name));
  return { cfg: buildCfg(body), body };
}

/** Every expression of a kind in evaluation order. */
function find(body: Expr, id: number, where: (e: Expr) => boolean = () => true): Expr[] {
  const out: Expr[] = [];
  walkPostOrder(body, (e) => {
    if (idOf(e) === id && where(e)) out.push(e);
  });
  return out;
}

const branchNode = (cfg: Cfg, e: Expr) => cfg.nodeOf.get(e)!;

test('a forward br_if over an unconditional exit is an exit of exactly the loops it leaves', () => {
  const { cfg, body } = cfgOf(`(module (func $f (param $n i32) (param $m i32) (local $i i32) (local $j i32)
    (block $done
      (loop $outer
        (block $a (br_if $a (i32.lt_s (local.get $i) (local.get $n))) (br $done))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (local.set $j (i32.const 0))
        (loop $inner
          (block $b (br_if $b (i32.lt_s (local.get $j) (local.get $m))) (br $outer))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $inner))))))`);
  const [outer, inner] = find(body, Id.Break).filter((e) => cfg.nodes[branchNode(cfg, e)]!.branch === e);
  expect(cfg.loops).toHaveLength(2);
  // The inner exit goes to the outer header: it leaves the inner loop only.
  expect(exitedLoops(cfg, branchNode(cfg, outer!))).toEqual([0]);
  expect(exitedLoops(cfg, branchNode(cfg, inner!))).toEqual([1]);
  expect(cfg.loops[1]!.parent).toBe(0);
  expect(isTopTestedLoop(cfg, 0)).toBe(true);
  expect(isTopTestedLoop(cfg, 1)).toBe(true);
});

test('three sequential loops emitted as a syntactic nest are three top-level natural loops', () => {
  const { cfg, body } = cfgOf(`(module ${SEQUENTIAL_NEST})`, 'run');
  expect(cfg.loops.map((l) => l.parent)).toEqual([null, null, null]);
  expect(cfg.loops.map((l) => l.depth)).toEqual([1, 1, 1]);
  const brIfs = find(body, Id.Break).filter((e) => cfg.nodes[branchNode(cfg, e)]!.branch === e);
  expect(brIfs.map((e) => exitedLoops(cfg, branchNode(cfg, e)))).toEqual([[0], [1], [2]]);
  // Code after loop a's exit is in no loop's body but its own.
  const set = find(body, Id.LocalSet)[1]!;
  expect(cfg.innermost[cfg.nodeOf.get(set)!]).toBe(1);
});

test('the control dependence of a block diamond ends at its immediate post-dominator, before the call', () => {
  const { cfg, body } = cfgOf(`(module (func $g) (func $f (param $c i32) (local $x i32)
    (block $m
      (block $e
        (br_if $e (local.get $c))
        (local.set $x (i32.const 1))
        (br $m))
      (local.set $x (i32.const 2)))
    (call $g)))`);
  const [branch] = find(body, Id.Break).filter((e) => cfg.nodes[branchNode(cfg, e)]!.branch === e);
  const node = branchNode(cfg, branch!);
  const call = find(body, Id.Call, (e) => Call.getTarget(e) === 'g')[0]!;
  expect(cfg.ipdom[node]).toBe(cfg.nodeOf.get(call));
  const region = branchRegion(cfg, node);
  expect(region.has(cfg.nodeOf.get(call)!)).toBe(false);
  // Both assignments of x are inside the region: x carries the condition after the merge.
  for (const set of find(body, Id.LocalSet)) expect(region.has(cfg.nodeOf.get(set)!)).toBe(true);
});

test("the out-of-range side of a float-to-int range check is in the check's region", () => {
  const { cfg, body } = cfgOf(`(module (func $f (param $x f64) (result i32) (local $r i32)
    ${FLOAT_TO_INT_DIAMOND}
    (local.get $r)))`);
  const [branch] = find(body, Id.Break).filter((e) => cfg.nodes[branchNode(cfg, e)]!.branch === e);
  const region = branchRegion(cfg, branchNode(cfg, branch!));
  const sets = find(body, Id.LocalSet).filter((e) => LocalSet.getIndex(e) === 1);
  expect(sets).toHaveLength(2);
  for (const set of sets) expect(region.has(cfg.nodeOf.get(set)!)).toBe(true);
});

test('a search loop that returns from its body: the return is an exit; a trap is not', () => {
  const { cfg, body } = cfgOf(`(module (memory 1) (func $f (param $n i32) (result i32) (local $i i32)
    (loop $l
      (if (i32.gt_u (local.get $i) (i32.const 1000)) (then (unreachable)))
      (if (i32.eq (i32.load (local.get $i)) (local.get $n)) (then (return (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 400))))
    (i32.const -1)))`);
  const ifs = find(body, Id.If);
  expect(ifs).toHaveLength(2);
  expect(exitedLoops(cfg, branchNode(cfg, ifs[0]!))).toEqual([]);
  expect(exitedLoops(cfg, branchNode(cfg, ifs[1]!))).toEqual([0]);
  expect(isTopTestedLoop(cfg, 0)).toBe(false);
});

test('empty loops that only branch to each other end (no forwarding cycle)', () => {
  const { cfg } = cfgOf(`(module (func $f (param $c i32)
    (block $out (br_if $out (local.get $c)) (loop $a (loop $b (br $a))))))`);
  expect(cfg.loops).toHaveLength(2);
  expect(isTopTestedLoop(cfg, 0)).toBe(false);
  expect(isTopTestedLoop(cfg, 1)).toBe(false);
});
