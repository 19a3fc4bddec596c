/**
 * Ground truth for the bundled kernel suite: every kernel binary, how to run
 * it, its result, and every loop of the compiled binary with its iteration
 * counts.
 *
 * Regenerate the binaries with `npm run asbuild` (AssemblyScript, build/kernels/)
 * and `native/build.sh` (C/C++, committed in native/wasm/). The loop lists were
 * verified by reading the binaries with wasm2wat, by reasoning from the
 * sources, and by running instrumented copies with the default `args` and
 * several other argument sets.
 *
 * Conventions:
 * - `loops` holds one entry per `loop` instruction of the binary (for entries
 *   with `loopsListed: "reachable"`: per loop in code reachable from `export`;
 *   the binary's other loops run 0 times). Entries of one function appear in
 *   the order of their `loop` instructions in the function body (pre-order),
 *   so equal (function, depth) pairs are told apart by their order.
 * - `depth` is the nesting depth among the loops of the same function,
 *   1 = outermost. A loop in a callee is depth 1 in its own function.
 * - Iterations are source-level iterations: how many times the loop body runs
 *   (`for (i = 0; i < n; i++)` runs n iterations per entry), independent of the
 *   loop's shape in the binary. AssemblyScript (Binaryen -O3) emits top-tested
 *   loops, `loop { if (cond) { body; br loop } }`, whose header executes
 *   iterations + entries times; clang -O2 emits rotated loops,
 *   `if (cond) { loop { body; br_if loop } }`, whose header executes exactly
 *   `iterations` times.
 * - `calls`, `iterationsPerCall` and `total` are JavaScript expressions over the
 *   kernel parameters (`params`, bound to `args` or to the numbers in `argv`),
 *   e.g. evaluate with `new Function(...params, `return (${expr});`)`.
 *   `iterations` = calls * iterationsPerCall, or `total` where the count per
 *   call differs between calls; `iterations` is that number for the default
 *   arguments over the whole run (including `_start`/`_initialize`).
 * - `dependsOn` lists the parameters the trip count per entry of the loop
 *   actually varies with (the answer an exact taint analysis of the loop's exit
 *   condition should give, counting control dependence). A parameter that
 *   appears in no loop's `dependsOn` is `prunable`: it cannot influence the
 *   loop structure.
 *
 * Running the binaries: AssemblyScript modules import `env.abort(msg, file,
 * line, col)` and `taintlens.register_variable(addr, size, name)`; WASI modules
 * import `wasi_snapshot_preview1` (node:wasi, version "preview1") and
 * `taintlens.register_variable`. Reactors need `wasi.initialize(instance)`
 * before calling `export`; commands run with `wasi.start(instance)` and take
 * `argv` after the program name (argv[0]). Results are deterministic; compare
 * `expectedResult` exactly (f64 checksums or i32 results).
 */

export type KernelKind = 'assemblyscript' | 'wasi-reactor' | 'wasi-command';

export interface LoopExpectation {
  /** Function name as recorded in the binary's name section. */
  function: string;
  /** Nesting depth among the loops of `function`, 1 = outermost. */
  depth: number;
  /** Number of calls of `function` during the run (expression over params). */
  calls?: string;
  /** Loop body executions per call of `function` (expression over params). */
  iterationsPerCall?: string;
  /** Total loop body executions over the run, where not calls * iterationsPerCall. */
  total?: string;
  /** Total loop body executions over the run for the default args/argv. */
  iterations?: number;
  /** Parameters that determine the loop's trip count per entry. */
  dependsOn?: readonly string[];
  /** Loop in C library code (wasi-libc) rather than in the kernel sources. */
  library?: boolean;
}

export interface KernelExpectation {
  /** Unique name; native kernels are prefixed "native/", taint examples are "<binary>.<export>". */
  name: string;
  /** Path of the binary relative to the repository root. */
  file: string;
  kind: KernelKind;
  /** Function to call ("_start" for WASI commands). */
  export: string;
  /** Parameter names as registered with taintlens.register_variable, in argument order. */
  params: readonly string[];
  /** Arguments for `export` (empty for commands, which take `argv`). */
  args: readonly number[];
  /** Command-line arguments after argv[0] (WASI commands only). */
  argv?: readonly string[];
  /** Return value of `export` for `args`. */
  expectedResult?: number;
  /** Exit code of a WASI command. */
  expectedExitCode?: number;
  /** Complete standard output of a WASI command. */
  expectedStdout?: string;
  /** Parameters that drive no loop (see `dependsOn`). */
  prunable: readonly string[];
  /** "reachable": `loops` lists only the loops reachable from `export`. Default: all loops. */
  loopsListed?: 'all' | 'reachable';
  loops: readonly LoopExpectation[];
}

function libraryLoops(fn: string, depths: readonly number[]): LoopExpectation[] {
  return depths.map((depth) => ({ function: fn, depth, library: true }));
}

/** Loops of the wasi-libc code (malloc, printf, strtol) linked into both WASI commands, in binary order. */
const WASI_LIBC_COMMAND_LOOPS: readonly LoopExpectation[] = [
  ...libraryLoops('dlmalloc', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
  ...libraryLoops('dlfree', [1, 1, 1]),
  ...libraryLoops('__stdio_write', [1]),
  ...libraryLoops('__stdio_exit', [1]),
  ...libraryLoops('__fwritex', [1]),
  ...libraryLoops('fwrite', [1]),
  // Natural loops: the second to fifth loops run one after another in the source (the structurizer
  // nests them), and the sixth runs after the main loop has exited.
  ...libraryLoops(
    'printf_core',
    [
      1, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 2, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 3,
      2, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    ],
  ),
  ...libraryLoops('pad', [1]),
  ...libraryLoops('memcpy', [1, 1, 1, 1]),
  ...libraryLoops('memset', [1]),
  ...libraryLoops('strlen', [1, 1]),
  ...libraryLoops('memchr', [1, 1]),
  ...libraryLoops('__intscan', [1, 1, 1, 1, 1, 1, 1, 1]),
];

/** Function names of the C++ kernel native/wasm/stencil.wasm (wasm-ld writes demangled names). */
const CXX_FILL_GRID =
  'void (anonymous namespace)::fillGrid<double>((anonymous namespace)::Grid3<double>&, unsigned int)';
const CXX_JACOBI_SWEEP =
  'void (anonymous namespace)::jacobiSweep<double>((anonymous namespace)::Grid3<double> const&,' +
  ' (anonymous namespace)::Grid3<double>&)';
const CXX_CHECKSUM = 'double (anonymous namespace)::checksum<double>((anonymous namespace)::Grid3<double> const&)';

export const KERNELS: readonly KernelExpectation[] = [
  {
    name: 'matmul',
    file: 'build/kernels/matmul.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['n'],
    args: [16],
    expectedResult: -10.74392953825275,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/matmul/fill',
        depth: 1,
        calls: '2',
        iterationsPerCall: 'n*n',
        iterations: 512,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/matmul/multiply',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 16,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/matmul/multiply',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'n*n',
        iterations: 256,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/matmul/multiply',
        depth: 3,
        calls: '1',
        iterationsPerCall: 'n*n*n',
        iterations: 4096,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/matmul/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n*n',
        iterations: 256,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      {
        function: 'assembly/taintlens/encodeName',
        depth: 1,
        calls: '1',
        iterationsPerCall: '1',
        iterations: 1,
        dependsOn: [],
      },
    ],
  },
  {
    name: 'stencil',
    file: 'build/kernels/stencil.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['size', 'iters'],
    args: [10, 4],
    expectedResult: 1469.6962180460991,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/stencil/init',
        depth: 1,
        calls: '2',
        iterationsPerCall: 'size**3',
        iterations: 2000,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/stencil/sweep',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size - 2',
        iterations: 32,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/stencil/sweep',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: '(size - 2)**2',
        iterations: 256,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/stencil/sweep',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: '(size - 2)**3',
        iterations: 2048,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/stencil/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'size**3',
        iterations: 1000,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/stencil/run',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'iters',
        iterations: 4,
        dependsOn: ['iters'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '2', total: '9', iterations: 9, dependsOn: [] },
    ],
  },
  {
    name: 'cg',
    file: 'build/kernels/cg.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['n', 'iters'],
    args: [64, 8],
    expectedResult: 131.45792064598064,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/cg/buildMatrix',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 64,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/cg/buildMatrix',
        depth: 2,
        calls: '1',
        iterationsPerCall: '7*n',
        iterations: 448,
        dependsOn: [],
      },
      {
        function: 'assembly/kernels/cg/initVectors',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 64,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/cg/spmv',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'n',
        iterations: 512,
        dependsOn: ['n'],
      },
      // Bound loaded from rowPtr: always 7 entries per row, so no parameter determines its
      // per-entry trip count (an analysis that tracks implicit flows may still attribute n: rowPtr
      // is built by counting in loops over n).
      {
        function: 'assembly/kernels/cg/spmv',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: '7*n',
        iterations: 3584,
        dependsOn: [],
      },
      {
        function: 'assembly/kernels/cg/dot',
        depth: 1,
        calls: '1 + 2*iters',
        iterationsPerCall: 'n',
        iterations: 1088,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/cg/axpy',
        depth: 1,
        calls: '2*iters',
        iterationsPerCall: 'n',
        iterations: 1024,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/cg/xpby',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'n',
        iterations: 512,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/cg/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 64,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/cg/run',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'iters',
        iterations: 8,
        dependsOn: ['iters'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '2', total: '6', iterations: 6, dependsOn: [] },
    ],
  },
  {
    name: 'fft',
    file: 'build/kernels/fft.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['logn'],
    args: [8],
    expectedResult: -727.5091406478658,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/fft/init',
        depth: 1,
        calls: '1',
        iterationsPerCall: '2**logn',
        iterations: 256,
        dependsOn: ['logn'],
      },
      {
        function: 'assembly/kernels/fft/bitReverse',
        depth: 1,
        calls: '1',
        iterationsPerCall: '2**logn',
        iterations: 256,
        dependsOn: ['logn'],
      },
      {
        function: 'assembly/kernels/fft/bitReverse',
        depth: 2,
        calls: '1',
        iterationsPerCall: '2**logn * logn',
        iterations: 2048,
        dependsOn: ['logn'],
      },
      {
        function: 'assembly/kernels/fft/butterflies',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'logn',
        iterations: 8,
        dependsOn: ['logn'],
      },
      {
        function: 'assembly/kernels/fft/butterflies',
        depth: 2,
        calls: '1',
        iterationsPerCall: '2**logn - 1',
        iterations: 255,
        dependsOn: ['logn'],
      },
      {
        function: 'assembly/kernels/fft/butterflies',
        depth: 3,
        calls: '1',
        iterationsPerCall: '2**(logn - 1) * logn',
        iterations: 1024,
        dependsOn: ['logn'],
      },
      {
        function: 'assembly/kernels/fft/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: '2**logn',
        iterations: 256,
        dependsOn: ['logn'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      {
        function: 'assembly/taintlens/encodeName',
        depth: 1,
        calls: '1',
        iterationsPerCall: '4',
        iterations: 4,
        dependsOn: [],
      },
    ],
  },
  {
    name: 'mergesort',
    file: 'build/kernels/mergesort.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['n'],
    args: [256],
    expectedResult: 21390.271852195263,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/mergesort/init',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 256,
        dependsOn: ['n'],
      },
      // Runs hi - lo iterations per call (the length of the merged range); the total is the merge
      // sort recurrence T(n) = T(floor(n/2)) + T(ceil(n/2)) + n.
      {
        function: 'assembly/kernels/mergesort/merge',
        depth: 1,
        calls: 'n - 1',
        total: 'n * Math.ceil(Math.log2(n)) - 2**Math.ceil(Math.log2(n)) + n',
        iterations: 2048,
        dependsOn: ['n'],
      },
      // Runs hi - lo iterations per call (the length of the merged range); the total is the merge
      // sort recurrence T(n) = T(floor(n/2)) + T(ceil(n/2)) + n.
      {
        function: 'assembly/kernels/mergesort/merge',
        depth: 1,
        calls: 'n - 1',
        total: 'n * Math.ceil(Math.log2(n)) - 2**Math.ceil(Math.log2(n)) + n',
        iterations: 2048,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/mergesort/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 256,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      {
        function: 'assembly/taintlens/encodeName',
        depth: 1,
        calls: '1',
        iterationsPerCall: '1',
        iterations: 1,
        dependsOn: [],
      },
    ],
  },
  {
    name: 'nbody',
    file: 'build/kernels/nbody.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['n', 'steps'],
    args: [16, 4],
    expectedResult: 1.6017125855052075,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/nbody/init',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 16,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/nbody/accelerate',
        depth: 1,
        calls: 'steps',
        iterationsPerCall: 'n',
        iterations: 64,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/nbody/accelerate',
        depth: 2,
        calls: 'steps',
        iterationsPerCall: 'n*n',
        iterations: 1024,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/nbody/integrate',
        depth: 1,
        calls: 'steps',
        iterationsPerCall: 'n',
        iterations: 64,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/nbody/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 16,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/nbody/run',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'steps',
        iterations: 4,
        dependsOn: ['steps'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '2', total: '6', iterations: 6, dependsOn: [] },
    ],
  },
  {
    name: 'scan',
    file: 'build/kernels/scan.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['n'],
    args: [1000],
    expectedResult: 33486.147333562374,
    prunable: [],
    loops: [
      {
        function: 'assembly/kernels/scan/init',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 1000,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/scan/inclusiveScan',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 1000,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/scan/checksum',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 1000,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      {
        function: 'assembly/taintlens/encodeName',
        depth: 1,
        calls: '1',
        iterationsPerCall: '1',
        iterations: 1,
        dependsOn: [],
      },
    ],
  },
  {
    name: 'miniapp',
    file: 'build/kernels/miniapp.wasm',
    kind: 'assemblyscript',
    export: 'run',
    params: ['size', 'iters', 'regions', 'balance', 'cost'],
    args: [6, 4, 3, 2, 2],
    expectedResult: 314.2050694649413,
    prunable: ['balance'],
    loops: [
      {
        function: 'assembly/kernels/miniapp/initDomain',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'size',
        iterations: 6,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/initDomain',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'size**2',
        iterations: 36,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/initDomain',
        depth: 3,
        calls: '1',
        iterationsPerCall: 'size**3',
        iterations: 216,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/computeForces',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size',
        iterations: 24,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/computeForces',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: 'size**2',
        iterations: 144,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/computeForces',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/integrate',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/updateRegions',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'regions',
        iterations: 12,
        dependsOn: ['regions'],
      },
      {
        function: 'assembly/kernels/miniapp/updateRegions',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: 'regions * cost',
        iterations: 24,
        dependsOn: ['cost'],
      },
      // Region r covers elements [size^3 * r / regions, size^3 * (r + 1) / regions): the trip count
      // per entry depends on size and regions; summed over all regions it is size^3.
      {
        function: 'assembly/kernels/miniapp/updateRegions',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: 'size**3 * cost',
        iterations: 1728,
        dependsOn: ['size', 'regions'],
      },
      {
        function: 'assembly/kernels/miniapp/computeTimeStep',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/reduce',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'size**3',
        iterations: 216,
        dependsOn: ['size'],
      },
      {
        function: 'assembly/kernels/miniapp/run',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'iters',
        iterations: 4,
        dependsOn: ['iters'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '5', total: '27', iterations: 27, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.foo',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'foo',
    params: ['a', 'b', 'c'],
    args: [5, 1, 1],
    expectedResult: 44281,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      // r = (b > 0 ? 2a : a) + (c > 0 ? 1 : 0): b reaches r as data (the branch compiles to a
      // select/shift), c only through a real branch (control dependence, an implicit flow).
      {
        function: 'assembly/kernels/taint_examples/foo',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'Math.max(0, (b > 0 ? 2*a : a) + (c > 0 ? 1 : 0))',
        iterations: 11,
        dependsOn: ['a', 'b', 'c'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '3', total: '3', iterations: 3, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.nest_const',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'nest_const',
    params: ['n'],
    args: [6],
    expectedResult: -2061721372,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/nest_const',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 6,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/taint_examples/nest_const',
        depth: 2,
        calls: '1',
        iterationsPerCall: '10*n',
        iterations: 60,
        dependsOn: [],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.nest_linear',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'nest_linear',
    params: ['n'],
    args: [5],
    expectedResult: -804729691,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/nest_linear',
        depth: 1,
        calls: '1',
        iterationsPerCall: '4',
        iterations: 4,
        dependsOn: [],
      },
      {
        function: 'assembly/kernels/taint_examples/nest_linear',
        depth: 2,
        calls: '1',
        iterationsPerCall: '4*n',
        iterations: 20,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.nest_quadratic',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'nest_quadratic',
    params: ['n', 'm'],
    args: [4, 3],
    expectedResult: 1277500,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/nest_quadratic',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 4,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/taint_examples/nest_quadratic',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'n*m',
        iterations: 12,
        dependsOn: ['m'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '2', total: '2', iterations: 2, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.triangular',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'triangular',
    params: ['n'],
    args: [6],
    expectedResult: 52254052,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/triangular',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 6,
        dependsOn: ['n'],
      },
      // The bound is the outer induction variable i: the trip count varies with n only through
      // control flow (no data flow from n into the exit condition).
      {
        function: 'assembly/kernels/taint_examples/triangular',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'n*(n - 1)/2',
        iterations: 15,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.matmul_small',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'matmul_small',
    params: ['m', 'n', 'k'],
    args: [3, 4, 5],
    expectedResult: 29122811,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/matmul_small',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'm',
        iterations: 3,
        dependsOn: ['m'],
      },
      {
        function: 'assembly/kernels/taint_examples/matmul_small',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'm*n',
        iterations: 12,
        dependsOn: ['n'],
      },
      {
        function: 'assembly/kernels/taint_examples/matmul_small',
        depth: 3,
        calls: '1',
        iterationsPerCall: 'm*n*k',
        iterations: 60,
        dependsOn: ['k'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '3', total: '3', iterations: 3, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.foo_ab',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'foo_ab',
    params: ['a', 'b'],
    args: [7, 3],
    expectedResult: 1629,
    prunable: ['b'],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/foo_ab',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'a',
        iterations: 7,
        dependsOn: ['a'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '2', total: '2', iterations: 2, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.via_memory',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'via_memory',
    params: ['n'],
    args: [9],
    expectedResult: 103323,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/loopOverSlot',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 9,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.via_global',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'via_global',
    params: ['n'],
    args: [8],
    expectedResult: 43462,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/loopOverGlobal',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 8,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.via_return',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'via_return',
    params: ['n'],
    args: [10],
    expectedResult: 15444,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/via_return',
        depth: 1,
        calls: '1',
        iterationsPerCall: '(n >> 1) + 2',
        iterations: 7,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.via_indirect',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'via_indirect',
    params: ['n'],
    args: [7],
    expectedResult: 149963570,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/via_indirect',
        depth: 1,
        calls: '1',
        iterationsPerCall: '(n & 1) ? 2*n + 1 : (n >> 1) + 1',
        iterations: 15,
        dependsOn: ['n'],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'taint_examples.callee_in_loop',
    file: 'build/kernels/taint_examples.wasm',
    kind: 'assemblyscript',
    export: 'callee_in_loop',
    params: ['n'],
    args: [4],
    expectedResult: 64739,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'assembly/kernels/taint_examples/callee_in_loop',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'n',
        iterations: 4,
        dependsOn: ['n'],
      },
      // Callee loop: entered once per iteration of the caller's loop over n, with the constant trip
      // count 5.
      {
        function: 'assembly/kernels/taint_examples/innerFive',
        depth: 1,
        calls: 'n',
        iterationsPerCall: '5',
        iterations: 20,
        dependsOn: [],
      },
      // Encodes each parameter name to UTF-8 for register_variable: total = sum of the parameter
      // names' lengths.
      { function: 'assembly/taintlens/encodeName', depth: 1, calls: '1', total: '1', iterations: 1, dependsOn: [] },
    ],
  },
  {
    name: 'native/matmul',
    file: 'native/wasm/matmul.wasm',
    kind: 'wasi-reactor',
    export: 'run',
    params: ['n'],
    args: [16],
    expectedResult: -10.74392953825275,
    prunable: [],
    loops: [
      { function: 'fill', depth: 1, calls: '2', iterationsPerCall: 'n*n', iterations: 512, dependsOn: ['n'] },
      { function: 'multiply', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 16, dependsOn: ['n'] },
      { function: 'multiply', depth: 2, calls: '1', iterationsPerCall: 'n*n', iterations: 256, dependsOn: ['n'] },
      { function: 'multiply', depth: 3, calls: '1', iterationsPerCall: 'n*n*n', iterations: 4096, dependsOn: ['n'] },
      { function: 'checksum', depth: 1, calls: '1', iterationsPerCall: 'n*n', iterations: 256, dependsOn: ['n'] },
    ],
  },
  {
    name: 'native/stencil',
    file: 'native/wasm/stencil.wasm',
    kind: 'wasi-reactor',
    export: 'run',
    params: ['size', 'iters'],
    args: [10, 4],
    expectedResult: 1469.6962180460991,
    prunable: [],
    loops: [
      {
        function: CXX_FILL_GRID,
        depth: 1,
        calls: '2',
        iterationsPerCall: 'size**3',
        iterations: 2000,
        dependsOn: ['size'],
      },
      {
        function: CXX_JACOBI_SWEEP,
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size - 2',
        iterations: 32,
        dependsOn: ['size'],
      },
      {
        function: CXX_JACOBI_SWEEP,
        depth: 2,
        calls: 'iters',
        iterationsPerCall: '(size - 2)**2',
        iterations: 256,
        dependsOn: ['size'],
      },
      {
        function: CXX_JACOBI_SWEEP,
        depth: 3,
        calls: 'iters',
        iterationsPerCall: '(size - 2)**3',
        iterations: 2048,
        dependsOn: ['size'],
      },
      {
        function: CXX_CHECKSUM,
        depth: 1,
        calls: '1',
        iterationsPerCall: 'size**3',
        iterations: 1000,
        dependsOn: ['size'],
      },
      { function: 'run', depth: 1, calls: '1', iterationsPerCall: 'iters', iterations: 4, dependsOn: ['iters'] },
    ],
  },
  {
    name: 'native/miniapp',
    file: 'native/wasm/miniapp.wasm',
    kind: 'wasi-reactor',
    export: 'run',
    params: ['size', 'iters', 'regions', 'balance', 'cost'],
    args: [6, 4, 3, 2, 2],
    expectedResult: 314.2050694649413,
    prunable: ['balance'],
    loops: [
      { function: 'init_domain', depth: 1, calls: '1', iterationsPerCall: 'size', iterations: 6, dependsOn: ['size'] },
      {
        function: 'init_domain',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'size**2',
        iterations: 36,
        dependsOn: ['size'],
      },
      {
        function: 'init_domain',
        depth: 3,
        calls: '1',
        iterationsPerCall: 'size**3',
        iterations: 216,
        dependsOn: ['size'],
      },
      {
        function: 'compute_forces',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size',
        iterations: 24,
        dependsOn: ['size'],
      },
      {
        function: 'compute_forces',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: 'size**2',
        iterations: 144,
        dependsOn: ['size'],
      },
      {
        function: 'compute_forces',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'integrate',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'update_regions',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'regions',
        iterations: 12,
        dependsOn: ['regions'],
      },
      {
        function: 'update_regions',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: 'regions * cost',
        iterations: 24,
        dependsOn: ['cost'],
      },
      // Region r covers elements [size^3 * r / regions, size^3 * (r + 1) / regions): the trip count
      // per entry depends on size and regions; summed over all regions it is size^3.
      {
        function: 'update_regions',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: 'size**3 * cost',
        iterations: 1728,
        dependsOn: ['size', 'regions'],
      },
      {
        function: 'compute_time_step',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      { function: 'reduce', depth: 1, calls: '1', iterationsPerCall: 'size**3', iterations: 216, dependsOn: ['size'] },
      { function: 'run', depth: 1, calls: '1', iterationsPerCall: 'iters', iterations: 4, dependsOn: ['iters'] },
    ],
  },
  {
    name: 'native/miniapp_cmd',
    file: 'native/wasm/miniapp_cmd.wasm',
    kind: 'wasi-command',
    export: '_start',
    params: ['size', 'iters', 'regions', 'balance', 'cost'],
    args: [],
    argv: ['6', '4', '3', '2', '2'],
    expectedExitCode: 0,
    expectedStdout: '314.20506946494129\n',
    prunable: ['balance'],
    loops: [
      { function: 'init_domain', depth: 1, calls: '1', iterationsPerCall: 'size', iterations: 6, dependsOn: ['size'] },
      {
        function: 'init_domain',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'size**2',
        iterations: 36,
        dependsOn: ['size'],
      },
      {
        function: 'init_domain',
        depth: 3,
        calls: '1',
        iterationsPerCall: 'size**3',
        iterations: 216,
        dependsOn: ['size'],
      },
      {
        function: 'compute_forces',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size',
        iterations: 24,
        dependsOn: ['size'],
      },
      {
        function: 'compute_forces',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: 'size**2',
        iterations: 144,
        dependsOn: ['size'],
      },
      {
        function: 'compute_forces',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'integrate',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      {
        function: 'update_regions',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'regions',
        iterations: 12,
        dependsOn: ['regions'],
      },
      {
        function: 'update_regions',
        depth: 2,
        calls: 'iters',
        iterationsPerCall: 'regions * cost',
        iterations: 24,
        dependsOn: ['cost'],
      },
      // Region r covers elements [size^3 * r / regions, size^3 * (r + 1) / regions): the trip count
      // per entry depends on size and regions; summed over all regions it is size^3.
      {
        function: 'update_regions',
        depth: 3,
        calls: 'iters',
        iterationsPerCall: 'size**3 * cost',
        iterations: 1728,
        dependsOn: ['size', 'regions'],
      },
      {
        function: 'compute_time_step',
        depth: 1,
        calls: 'iters',
        iterationsPerCall: 'size**3',
        iterations: 864,
        dependsOn: ['size'],
      },
      { function: 'reduce', depth: 1, calls: '1', iterationsPerCall: 'size**3', iterations: 216, dependsOn: ['size'] },
      { function: 'run', depth: 1, calls: '1', iterationsPerCall: 'iters', iterations: 4, dependsOn: ['iters'] },
      { function: 'main', depth: 1, calls: '1', iterationsPerCall: '5', iterations: 5, dependsOn: [] },
      ...WASI_LIBC_COMMAND_LOOPS,
    ],
  },
  {
    name: 'native/taint_examples.foo',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'foo',
    params: ['a', 'b', 'c'],
    args: [5, 1, 1],
    expectedResult: 44281,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      // r = (b > 0 ? 2a : a) + (c > 0 ? 1 : 0): b reaches r as data (the branch compiles to a
      // select/shift), c only through a real branch (control dependence, an implicit flow).
      {
        function: 'foo',
        depth: 1,
        calls: '1',
        iterationsPerCall: 'Math.max(0, (b > 0 ? 2*a : a) + (c > 0 ? 1 : 0))',
        iterations: 11,
        dependsOn: ['a', 'b', 'c'],
      },
    ],
  },
  {
    name: 'native/taint_examples.nest_const',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'nest_const',
    params: ['n'],
    args: [6],
    expectedResult: -2061721372,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'nest_const', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 6, dependsOn: ['n'] },
      { function: 'nest_const', depth: 2, calls: '1', iterationsPerCall: '10*n', iterations: 60, dependsOn: [] },
    ],
  },
  {
    name: 'native/taint_examples.nest_linear',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'nest_linear',
    params: ['n'],
    args: [5],
    expectedResult: -804729691,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'nest_linear', depth: 1, calls: '1', iterationsPerCall: '4', iterations: 4, dependsOn: [] },
      { function: 'nest_linear', depth: 2, calls: '1', iterationsPerCall: '4*n', iterations: 20, dependsOn: ['n'] },
    ],
  },
  {
    name: 'native/taint_examples.nest_quadratic',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'nest_quadratic',
    params: ['n', 'm'],
    args: [4, 3],
    expectedResult: 1277500,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'nest_quadratic', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 4, dependsOn: ['n'] },
      { function: 'nest_quadratic', depth: 2, calls: '1', iterationsPerCall: 'n*m', iterations: 12, dependsOn: ['m'] },
    ],
  },
  {
    name: 'native/taint_examples.triangular',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'triangular',
    params: ['n'],
    args: [6],
    expectedResult: 52254052,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'triangular', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 6, dependsOn: ['n'] },
      // The bound is the outer induction variable i: the trip count varies with n only through
      // control flow (no data flow from n into the exit condition).
      {
        function: 'triangular',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'n*(n - 1)/2',
        iterations: 15,
        dependsOn: ['n'],
      },
    ],
  },
  {
    name: 'native/taint_examples.matmul_small',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'matmul_small',
    params: ['m', 'n', 'k'],
    args: [3, 4, 5],
    expectedResult: 29122811,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'matmul_small', depth: 1, calls: '1', iterationsPerCall: 'm', iterations: 3, dependsOn: ['m'] },
      { function: 'matmul_small', depth: 2, calls: '1', iterationsPerCall: 'm*n', iterations: 12, dependsOn: ['n'] },
      { function: 'matmul_small', depth: 3, calls: '1', iterationsPerCall: 'm*n*k', iterations: 60, dependsOn: ['k'] },
    ],
  },
  {
    name: 'native/taint_examples.foo_ab',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'foo_ab',
    params: ['a', 'b'],
    args: [7, 3],
    expectedResult: 1629,
    prunable: ['b'],
    loopsListed: 'reachable',
    loops: [{ function: 'foo_ab', depth: 1, calls: '1', iterationsPerCall: 'a', iterations: 7, dependsOn: ['a'] }],
  },
  {
    name: 'native/taint_examples.via_memory',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'via_memory',
    params: ['n'],
    args: [9],
    expectedResult: 103323,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'loop_over_slot', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 9, dependsOn: ['n'] },
    ],
  },
  {
    name: 'native/taint_examples.via_global',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'via_global',
    params: ['n'],
    args: [8],
    expectedResult: 43462,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'loop_over_global', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 8, dependsOn: ['n'] },
    ],
  },
  {
    name: 'native/taint_examples.via_return',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'via_return',
    params: ['n'],
    args: [10],
    expectedResult: 15444,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'via_return',
        depth: 1,
        calls: '1',
        iterationsPerCall: '(n >> 1) + 2',
        iterations: 7,
        dependsOn: ['n'],
      },
    ],
  },
  {
    name: 'native/taint_examples.via_indirect',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'via_indirect',
    params: ['n'],
    args: [7],
    expectedResult: 149963570,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      {
        function: 'via_indirect',
        depth: 1,
        calls: '1',
        iterationsPerCall: '(n & 1) ? 2*n + 1 : (n >> 1) + 1',
        iterations: 15,
        dependsOn: ['n'],
      },
    ],
  },
  {
    name: 'native/taint_examples.callee_in_loop',
    file: 'native/wasm/taint_examples.wasm',
    kind: 'wasi-reactor',
    export: 'callee_in_loop',
    params: ['n'],
    args: [4],
    expectedResult: 64739,
    prunable: [],
    loopsListed: 'reachable',
    loops: [
      { function: 'callee_in_loop', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 4, dependsOn: ['n'] },
      // Callee loop: entered once per iteration of the caller's loop over n, with the constant trip
      // count 5.
      { function: 'inner_five', depth: 1, calls: 'n', iterationsPerCall: '5', iterations: 20, dependsOn: [] },
    ],
  },
  {
    name: 'native/taint_cmd',
    file: 'native/wasm/taint_cmd.wasm',
    kind: 'wasi-command',
    export: '_start',
    params: ['n'],
    args: [],
    argv: ['6'],
    expectedExitCode: 0,
    expectedStdout: '1394555322\n',
    prunable: [],
    loops: [
      { function: 'loop_nest', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 6, dependsOn: ['n'] },
      { function: 'loop_nest', depth: 2, calls: '1', iterationsPerCall: '4*n', iterations: 24, dependsOn: [] },
      { function: 'loop_nest', depth: 1, calls: '1', iterationsPerCall: 'n', iterations: 6, dependsOn: ['n'] },
      // The bound is the outer induction variable i: the trip count varies with n only through
      // control flow (no data flow from n into the exit condition).
      {
        function: 'loop_nest',
        depth: 2,
        calls: '1',
        iterationsPerCall: 'n*(n - 1)/2',
        iterations: 15,
        dependsOn: ['n'],
      },
      ...WASI_LIBC_COMMAND_LOOPS,
    ],
  },
];
