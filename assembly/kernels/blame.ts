// Variable blame kernels (issue #14, docs/blame.md), the AssemblyScript side: every array comes from
// the runtime's allocator (__new), so heap containers carry allocation call paths.
//
//   run(n)            fills a small input (n values) cheaply, then spends nearly all its time
//                     producing a larger output (n*n values): `output` owns the work.
//   fields(n, rounds) an object whose three fields are arrays: their work rolls up into it.

export function run(n: i32): f64 {
  const input = new StaticArray<f64>(n);
  const output = new StaticArray<f64>(n * n);
  for (let i = 0; i < n; i++) unchecked((input[i] = <f64>i * 0.5));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let acc = 0.0;
      for (let k = 0; k < 16; k++) acc += Math.sqrt(unchecked(input[i]) * <f64>k + unchecked(input[j]));
      unchecked((output[i * n + j] = acc));
    }
  }
  let sum = 0.0;
  for (let i = 0; i < n * n; i += n + 1) sum += unchecked(output[i]);
  return sum;
}

class Panel {
  l2: StaticArray<f64>;
  a: StaticArray<f64>;
  u: StaticArray<f64>;
  constructor(public n: i32) {
    this.l2 = new StaticArray<f64>(n);
    this.a = new StaticArray<f64>(n);
    this.u = new StaticArray<f64>(n);
  }
}

function factor(panel: Panel, rounds: i32): void {
  const n = panel.n;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < n; i++) unchecked((panel.l2[i] = unchecked(panel.l2[i]) * 0.5 + Math.sqrt(<f64>(i + r))));
    for (let i = 0; i < n; i++) unchecked((panel.a[i] = unchecked(panel.a[i]) * 0.25 + unchecked(panel.l2[i])));
    for (let i = 0; i < n; i++) unchecked((panel.u[i] = unchecked(panel.u[i]) * 0.125 + unchecked(panel.a[i]) - unchecked(panel.l2[i])));
  }
}

export function fields(n: i32, rounds: i32): f64 {
  const panel = new Panel(n);
  factor(panel, rounds);
  let sum = 0.0;
  for (let i = 0; i < n; i++) sum += unchecked(panel.u[i]);
  return sum;
}
