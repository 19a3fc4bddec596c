// Real third-party WASI programs nobody here wrote: icepll and icepack of Project IceStorm, as the
// devDependency @yowasp/nextpnr-ice40 ships them (plain WASI preview-1 command modules). Every
// instrumentation mode computes what the original does (same output); icepack reads a file through
// --dir, writes one through --dir-rw and reads stdin through --stdin; taint labels argv words.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';

const gen = 'node_modules/@yowasp/nextpnr-ice40/gen';
const icepll = join(gen, 'icepll.core.wasm');
const icepack = join(gen, 'icepack.core.wasm');
const pllArgv = ['--', '-i', '12', '-o', '48'];
/** icepll's input frequency (`-i 12`) and output frequency (`-o 48`) as taint parameters. */
const pllMarks = ['--param', 'fin=argv2', '--param', 'fout=argv4'];

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'taintlens-icestorm-'));
  copyFileSync('test/runtime/fixtures/ice40-384.asc', join(scratch, 'chip.asc'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function stdoutOf(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await cli([...args.slice(0, 2), '--json', ...args.slice(2)]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return (JSON.parse(stdout) as { stdout: string }).stdout;
}

describe('icepll (PLL configuration search, 61 KB)', () => {
  let reference: string;
  beforeAll(async () => {
    reference = await stdoutOf(['run', icepll, '--clock', 'virtual', ...pllArgv]);
    expect(reference).toContain('DIVF: 63');
  });

  test('loops prints what the uninstrumented run prints', async () => {
    expect(await stdoutOf(['loops', icepll, ...pllArgv])).toBe(reference);
  });

  test.each(['loops', 'taint', 'measure', 'loops,taint'])(
    'instrumented for %s, the program prints the same',
    async (modes) => {
      const out = join(scratch, `icepll.${modes.replace(',', '-')}.wasm`);
      expect((await cli(['instrument', icepll, '--mode', modes, '-o', out])).code).toBe(0);
      expect(await stdoutOf(['run', out, '--clock', 'virtual', ...pllArgv])).toBe(reference);
    },
  );

  test('taint with argv parameters finishes, prints what the uninstrumented run prints and names the loops each drives', async () => {
    const { code, stdout } = await cli(['taint', icepll, ...pllMarks, '--json', ...pllArgv]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      stdout: string;
      coverage: Record<string, { loops: string[] }>;
      loops: Array<{ id: string; params: string[]; contexts: Array<{ params: string[] }> }>;
    };
    expect(report.stdout).toBe(reference);
    const { fin, fout } = report.coverage;
    expect(fin!.loops.length).toBeGreaterThan(0);
    expect(fout!.loops.length).toBeGreaterThan(0);
    // Parsing "-i 12" loops over fin's digits alone (in that call's context: the same loop parses
    // fout's "-o 48" in another); the search over divider settings depends on both.
    expect(report.loops.some((l) => l.contexts.some((c) => c.params.join() === 'fin'))).toBe(true);
    expect(report.loops.some((l) => l.params.join() === 'fin,fout')).toBe(true);
  });

  test('taint --top N keeps the N rows of each table that matter most', async () => {
    // --wide: one line per row.
    const top = await cli(['taint', icepll, ...pllMarks, '--top', '3', '--wide', ...pllArgv]);
    expect(top.code).toBe(0);
    const section = (text: string, title: string) => {
      const lines = text.split('\n');
      const start = lines.indexOf(title) + 3;
      const end = lines.findIndex(
        (line, i) => i >= start && (line === '' || line.startsWith('(') || line.startsWith('pruned:')),
      );
      return lines.slice(start, end);
    };
    const functions = section(top.stdout, 'functions (dependency: nesting multiplies, siblings add)');
    expect(functions).toHaveLength(3);
    for (const row of functions) expect(row).toMatch(/\bfin\b/); // parameter-dependent rows first
    expect(top.stdout).toMatch(/\(3 of (\d{2,}|[4-9]) functions: parameter-dependent first/);
    expect(top.stdout).toMatch(/\(3 of (\d{2,}|[4-9]) branches/);
    expect(top.stdout).toMatch(/^fin +\S+, \S+, \S+ … \(\+\d+\) /m); // the parameter's lists: 3 ids and the count left out
    expect((await cli(['taint', icepll, '--top', '0', ...pllArgv])).code).toBe(2);
  });
});

describe('icepack (bitstream packer, 355 KB): files through --dir, stdin through --stdin', () => {
  const pack = (command: string, extra: string[] = []) => [
    command,
    icepack,
    '--dir-rw',
    `${scratch}:data`,
    ...extra,
    '--',
    'data/chip.asc',
    `data/chip.${command}.bin`,
  ];

  test.each(['run', 'loops'])(
    '%s packs a configuration read through --dir into a file written through --dir-rw',
    async (command) => {
      const { code, stderr } = await cli(pack(command));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const packed = readFileSync(join(scratch, `chip.${command}.bin`));
      expect(packed.includes(Buffer.from([0x7e, 0xaa, 0x99, 0x7e]))).toBe(true); // the bitstream preamble
      if (command !== 'run') expect(packed.equals(readFileSync(join(scratch, 'chip.run.bin')))).toBe(true);
    },
  );

  test.each(['loops', 'taint'])(
    '%s unpacks a bitstream read from --stdin, printing what the uninstrumented run prints',
    async (command) => {
      await cli(pack('run'));
      const stdin = ['--stdin', join(scratch, 'chip.run.bin'), '--', '-u'];
      const reference = await stdoutOf(['run', icepack, ...stdin]);
      expect(reference).toContain('.device 384');
      expect(reference).toMatch(/^\.logic_tile 1 1$/m);
      expect(await stdoutOf([command, icepack, ...stdin])).toBe(reference);
    },
  );
});
