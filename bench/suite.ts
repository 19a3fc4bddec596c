// The benchmark suite: every bundled kernel with arguments sized so one run takes tens of ms.
export interface BenchKernel {
  name: string;
  file: string;
  invoke: string | null;
  args: string[];
  argv?: string[];
}

export const benchSuite: BenchKernel[] = [
  { name: 'matmul', file: 'build/kernels/matmul.wasm', invoke: 'run', args: ['256'] },
  { name: 'stencil', file: 'build/kernels/stencil.wasm', invoke: 'run', args: ['64', '16'] },
  { name: 'cg', file: 'build/kernels/cg.wasm', invoke: 'run', args: ['50000', '40'] },
  { name: 'fft', file: 'build/kernels/fft.wasm', invoke: 'run', args: ['18'] },
  { name: 'mergesort', file: 'build/kernels/mergesort.wasm', invoke: 'run', args: ['200000'] },
  { name: 'nbody', file: 'build/kernels/nbody.wasm', invoke: 'run', args: ['600', '10'] },
  { name: 'scan', file: 'build/kernels/scan.wasm', invoke: 'run', args: ['2000000'] },
  { name: 'miniapp', file: 'build/kernels/miniapp.wasm', invoke: 'run', args: ['32', '20', '8', '3', '4'] },
  { name: 'matmul.c', file: 'native/wasm/matmul.wasm', invoke: 'run', args: ['256'] },
  { name: 'stencil.cpp', file: 'native/wasm/stencil.wasm', invoke: 'run', args: ['64', '16'] },
  // Memory-bound PolyBench-style C kernels built with plain -O2 (native/build.sh, build_plain).
  { name: 'gemm.c', file: 'native/wasm/gemm.wasm', invoke: 'run', args: ['360'] },
  { name: 'trmm.c', file: 'native/wasm/trmm.wasm', invoke: 'run', args: ['500', '500'] },
  { name: 'jacobi2d.c', file: 'native/wasm/jacobi2d.wasm', invoke: 'run', args: ['1000', '20'] },
  { name: 'heat3d.c', file: 'native/wasm/heat3d.wasm', invoke: 'run', args: ['80', '20'] },
  { name: 'lu.c', file: 'native/wasm/lu.wasm', invoke: 'run', args: ['600'] },
];
