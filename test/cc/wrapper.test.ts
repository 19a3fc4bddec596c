// taintlens-cc: `make CC=taintlens-cc` builds an analyzable kernel (-g, wasm32-wasi) and its
// instrumented twin; the analysis agrees with the post-link path on the committed -g build.
// Needs clang with wasi-libc: skipped with the reason when it is missing (CI has no clang).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findClang, planCompile } from '../../src/cc/wrapper.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const clang = findClang('c');
const make = spawnSync('make', ['--version']).status === 0;
const reason = !clang ? 'clang not installed' : !make ? 'make not installed' : '';

describe('planCompile (no clang needed)', () => {
  it('adds the wasm32-wasi target and -g, finds the link output, takes the mode from the option or env', () => {
    const link = planCompile(['-O2', 'a.o', '-o', 'k.wasm', '--taintlens-mode=taint,loops'], 'clang', {});
    expect(link).toEqual({
      compiler: 'clang',
      args: ['--target=wasm32-wasi', '-g', '-O2', 'a.o', '-o', 'k.wasm'],
      linkOutput: 'k.wasm',
      modes: ['taint', 'loops'],
    });
    expect(planCompile(['-c', 'a.c', '-gdwarf-5', '--target=wasm32-wasi'], 'clang', {}).args).toEqual([
      '-c',
      'a.c',
      '-gdwarf-5',
      '--target=wasm32-wasi',
    ]);
    expect(planCompile(['-c', 'a.c'], 'clang', {}).linkOutput).toBeNull();
    expect(planCompile(['a.c'], 'clang', { TAINTLENS_MODE: 'none' })).toMatchObject({ linkOutput: 'a.out', modes: [] });
    expect(() => planCompile(['a.c', '--taintlens-mode=nope'], 'clang', {})).toThrow(/unknown mode 'nope'/);
  });
});

describe.skipIf(reason !== '')(`make CC=taintlens-cc${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('builds matmul with -g; loops and taint agree with the committed -g build', async () => {
    const dir = tempDir('taintlens-cc-');
    const native = resolve('native');
    writeFileSync(
      join(dir, 'Makefile'),
      [
        `CFLAGS = -O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -std=c11 -I${native}/include`,
        'matmul.wasm: matmul.o',
        '\t$(CC) -mexec-model=reactor -Wl,--export=run -o $@ $^',
        `matmul.o: ${native}/src/matmul.c`,
        '\t$(CC) $(CFLAGS) -c -o $@ $<',
        '',
      ].join('\n'),
    );
    const built = spawnSync('make', ['-C', dir, `CC=${resolve('bin/taintlens-cc.js')}`], { encoding: 'utf8' });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    expect(existsSync(join(dir, 'matmul.loops.wasm')) && existsSync(join(dir, 'matmul.loops.sites.json'))).toBe(true);
    const summary = (file: string) => async () => {
      const loops = JSON.parse((await cli(['loops', file, '--args', '7', '--json'])).stdout);
      const taint = JSON.parse((await cli(['taint', file, '--args', '7', '--json'])).stdout);
      return {
        loops: loops.loops.map((l: { loop: string; iterations: number; source: string }) => [
          l.loop,
          l.iterations,
          l.source.split('/').pop(),
        ]),
        taint: taint.functions.map((f: { name: string; dependency: string }) => [f.name, f.dependency]),
      };
    };
    const wrapped = await summary(join(dir, 'matmul.wasm'))();
    expect(wrapped).toEqual(await summary('native/wasm/debug/matmul.wasm')());
    expect(wrapped.loops).toContainEqual(['L3', 343, 'matmul.c:25']);
    const run = await cli(['run', join(dir, 'matmul.loops.wasm'), '--args', '7', '--json']);
    expect(run.code).toBe(0);
  });
});
