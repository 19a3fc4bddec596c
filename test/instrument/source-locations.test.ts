// Source locations from DWARF (clang -g, DWARF 4 and 5) and from AssemblyScript source maps: the
// exact line of known loops, calls and functions; modules without debug info say where lines come from.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { siteTableOf } from '../../instrument/pipeline.js';
import { readModuleLocations } from '../../instrument/debug/locations.js';
import { readStaticVariables, staticVariableAt } from '../../instrument/debug/dwarf-variables.js';
import type { SiteTable } from '../../instrument/sites.js';
import { cli } from '../helpers/cli.js';

const table = (file: string) => siteTableOf(new Uint8Array(readFileSync(file)), file);
const where = (t: SiteTable, fn: string) =>
  t.loops.filter((l) => l.function === fn).map((l) => `${l.location?.file}:${l.location?.line}`);
const fnLine = (t: SiteTable, fn: string) => t.functions.find((f) => f.name === fn)?.location;

describe('DWARF .debug_line (clang -g)', () => {
  it('C, DWARF 4: functions and every loop of matmul at their source lines', () => {
    const t = table('native/wasm/debug/matmul.wasm');
    expect(t.sources?.origin).toBe('dwarf');
    expect(fnLine(t, 'multiply')).toEqual({ file: 'native/src/matmul.c', line: 21 });
    expect(where(t, 'fill')).toEqual(['native/src/matmul.c:14']);
    expect(where(t, 'multiply')).toEqual([
      'native/src/matmul.c:22',
      'native/src/matmul.c:23',
      'native/src/matmul.c:25',
    ]);
    expect(where(t, 'checksum')).toEqual(['native/src/matmul.c:36']);
    const calls = t.calls
      .filter((c) => c.function === 'run' && c.kind === 'direct')
      .map((c) => `${c.target}@${c.location?.line}`);
    expect(calls).toEqual(['fill@48', 'fill@49', 'multiply@50', 'checksum@51']);
  });

  it('C++, DWARF 5: the stencil sweep nest', () => {
    const t = table('native/wasm/debug/stencil.wasm');
    const sweep = t.loops.filter((l) => l.depth === 3)[0]!;
    expect(sweep.location).toEqual({ file: 'native/src/stencil.cpp', line: 54 });
    expect(t.loops.map((l) => l.location?.line).sort()).toEqual([41, 52, 53, 54, 69, 85]);
  });

  it('C, DWARF 5: the triple nest of matmul_small and the triangular loop', () => {
    const t = table('native/wasm/debug/taint_examples.wasm');
    expect(where(t, 'matmul_small')).toEqual([
      'native/src/taint_examples.c:93',
      'native/src/taint_examples.c:94',
      'native/src/taint_examples.c:96',
    ]);
    expect(where(t, 'triangular')).toEqual(['native/src/taint_examples.c:79', 'native/src/taint_examples.c:80']);
  });

  it('branches: the loop tests of multiply sit on the for lines', () => {
    const loc = readModuleLocations(new Uint8Array(readFileSync('native/wasm/debug/matmul.wasm')), 'matmul.wasm');
    const lines = loc.functions.flatMap((f) => (f.location?.line === 21 ? f.branches.map((b) => b?.line) : []));
    expect(lines).toEqual([22, 25, 23, 22]);
  });
});

describe('AssemblyScript source maps (--sourceMap)', () => {
  it('reads build/kernels/matmul.wasm.map: loops at their for lines', () => {
    const t = table('build/kernels/matmul.wasm');
    expect(t.sources?.origin).toBe('source-map');
    const name = (fn: string) => `assembly/kernels/matmul/${fn}`;
    expect(where(t, name('fill'))).toEqual(['assembly/kernels/matmul.ts:11']);
    expect(where(t, name('multiply'))).toEqual([
      'assembly/kernels/matmul.ts:19',
      'assembly/kernels/matmul.ts:20',
      'assembly/kernels/matmul.ts:22',
    ]);
    expect(where(t, name('checksum'))).toEqual(['assembly/kernels/matmul.ts:33']);
  });
});

describe("AssemblyScript: inlined helpers keep their own lines out of the kernel's", () => {
  const lines = (file: string, fns: Record<string, number[]>) => {
    const t = table(`build/kernels/${file}.wasm`);
    const name = (fn: string) => `assembly/kernels/${file}/${fn}`;
    for (const [fn, expected] of Object.entries(fns)) {
      expect(where(t, name(fn)), fn).toEqual(expected.map((line) => `assembly/kernels/${file}.ts:${line}`));
    }
    return t;
  };

  it('miniapp: every loop at its for line, run in miniapp.ts rather than the inlined param() of taintlens.ts', () => {
    const t = lines('miniapp', {
      initDomain: [53, 54, 55],
      computeForces: [74, 75, 76],
      integrate: [98],
      updateRegions: [117, 121, 122],
      computeTimeStep: [136],
      reduce: [145],
      run: [161],
    });
    // run's first instructions are the inlined param(): its own first line is `size = param(...)`.
    expect(fnLine(t, 'assembly/kernels/miniapp/run')).toEqual({ file: 'assembly/kernels/miniapp.ts', line: 152 });
    // encodeName's loop is its `while`, not the last statement of the body before the back-edge.
    expect(where(t, 'assembly/taintlens/encodeName')).toEqual(['assembly/taintlens.ts:30']);
  });

  it("mergesort and cg: every loop at its for line (checksum's rotated loop test has no position of its own)", () => {
    lines('mergesort', { init: [13], merge: [23, 32], checksum: [49] });
    const t = lines('cg', {
      buildMatrix: [33, 36],
      initVectors: [57],
      spmv: [70, 73],
      dot: [83],
      axpy: [91],
      xpby: [98],
      checksum: [106],
      run: [129],
    });
    expect(fnLine(t, 'assembly/kernels/cg/run')?.file).toBe('assembly/kernels/cg.ts');
  });
});

describe('static variables from .debug_info (blame names C globals by them)', () => {
  const variables = (file: string) => readStaticVariables(new Uint8Array(readFileSync(file)));

  it("DWARF 5 (DW_OP_addrx, string offsets): the program's globals with their sizes", () => {
    const found = variables('native/wasm/debug/blame_globals.wasm');
    const byName = (name: string) => found.find((v) => v.name === name);
    expect(byName('grid')?.bytes).toBe(96 * 96 * 8);
    expect(byName('next')?.bytes).toBe(96 * 96 * 8);
    expect(byName('histogram')?.bytes).toBe(64);
    const grid = byName('grid')!;
    expect(staticVariableAt(found, grid.address + 8 * 97)?.name).toBe('grid');
    expect(staticVariableAt(found, grid.address + grid.bytes)?.name).toBe('next');
    const ints = variables('native/wasm/debug/taint_examples.wasm').filter(
      (v) => v.name.startsWith('global_bound') || v.name.startsWith('implicit_'),
    );
    expect(ints.map((v) => `${v.name}:${v.bytes}`).sort()).toEqual(['global_bound:4', 'implicit_branches_taken:4']);
  });

  it("DWARF 4 (DW_OP_addr, .debug_str): wasi-libc's statics in the mini-app; none without -g", () => {
    const found = variables('native/wasm/debug/miniapp_cmd.wasm');
    expect(found.find((v) => v.name === 'xdigits')?.bytes).toBe(16);
    expect(found.find((v) => v.name === 'errmsgstr')?.bytes).toBe(1552);
    expect(variables('native/wasm/blame_globals.wasm')).toEqual([]);
  });
});

describe('without debug info', () => {
  it('keeps working and says where locations would come from', () => {
    const t = table('native/wasm/matmul.wasm');
    expect(t.sources?.origin).toBeNull();
    expect(t.sources?.note).toMatch(/-g .*--sourceMap/);
    expect(t.loops.every((l) => l.location === undefined || l.location === null)).toBe(true);
    expect(t.loops.length).toBe(5);
  });
});

describe('lines in the reports', () => {
  const taintBranches = async (args: string[]) => {
    const { code, stdout } = await cli(['taint', ...args, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      branches: Array<{ function: string; params: string[]; source: string | null }>;
    };
    return report.branches.filter((b) => b.params.length > 0).map((b) => `${b.params.join(',')}@${b.source}`);
  };

  const FOO = ['--invoke', 'foo', '--args', '3,1,2'];

  it('taint: parameter-dependent branches of C (DWARF) and AssemblyScript (source map) at their if/for lines', async () => {
    // foo: `if (c > 0)` on line 27 (the `if (b > 0)` became a select), the loop guard on line 32
    // (which c reaches through the if: every branch's control flow).
    expect(await taintBranches(['native/wasm/debug/taint_examples.wasm', ...FOO, '--implicit-flow', 'on'])).toEqual([
      'c@native/src/taint_examples.c:27',
      'a,b,c@native/src/taint_examples.c:32',
    ]);
    expect(await taintBranches(['build/kernels/taint_examples.wasm', ...FOO, '--implicit-flow', 'on'])).toEqual([
      'c@assembly/kernels/taint_examples.ts:32',
    ]);
  });

  it('taint: C++ (DWARF 5) branches of the stencil at the guards of its loops', async () => {
    const lines = (await taintBranches(['native/wasm/debug/stencil.wasm', '--args', '12,2'])).map((b) =>
      b.replace(/^.*:/, ''),
    );
    expect(lines.sort()).toEqual(['22', '22', '41', '52', '69', '85']);
  });

  it('taint: without debug info branches have no line', async () => {
    expect(await taintBranches(['native/wasm/taint_examples.wasm', ...FOO, '--implicit-flow', 'on'])).toEqual([
      'c@null',
      'a,b,c@null',
    ]);
  });

  it('taint: parameter-dependent branches of library code are folded like its loops; --all lists them', async () => {
    const argv = ['--', '16', '2', '2', '1', '1'];
    const folded = await cli(['taint', 'native/wasm/debug/miniapp_cmd.wasm', ...argv]);
    expect(folded.code).toBe(0);
    expect(folded.stdout).toMatch(/B\d+ +miniapp\.c:67 +br_if +compute_forces/);
    expect(folded.stdout).not.toMatch(/vfprintf\.c/);
    expect(folded.stdout).toMatch(
      /\d+ parameter-dependent branch\(es\) of library code folded into their callers; --all lists them/,
    );
    const all = await cli(['taint', 'native/wasm/debug/miniapp_cmd.wasm', '--all', ...argv]);
    expect(all.stdout).toMatch(/vfprintf\.c:\d+ +br_if +printf_core/);
  });

  it('loops: "called from" names the line of each call site', async () => {
    const { code, stdout } = await cli([
      'loops',
      'native/wasm/debug/miniapp_cmd.wasm',
      '--json',
      '--',
      '16',
      '2',
      '2',
      '1',
      '1',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      loops: Array<{ function: string; callpath: string; callsiteSources?: Array<string | null> }>;
    };
    const forces = report.loops.find((l) => l.function === 'compute_forces')!;
    expect(forces.callpath.endsWith('main->run->compute_forces')).toBe(true);
    // main calls run on line 190, run calls compute_forces on line 163 of miniapp.c.
    expect(forces.callsiteSources!.slice(-2)).toEqual(['native/src/miniapp.c:190', 'native/src/miniapp.c:163']);
    const text = await cli(['loops', 'native/wasm/debug/miniapp_cmd.wasm', '--wide', '--', '16', '2', '2', '1', '1']);
    expect(text.stdout).toMatch(/compute_forces\s+.*main:190 > run:163/);
  });
});
