// Math library functions whose result is a function of their arguments only, as DFSan's ABI list
// declares them (`fun:pow=functional`, Perf-Taint's share/dfsan_abilist.txt and LLVM's default
// list): the taint of a call's result is the union of its arguments' labels. In a WebAssembly
// module libm is compiled in, and its code reads constant tables at indices computed from the
// argument's bits (a label the default pointer-label rule does not join), so without this rule
// `pow(x, exp(g))` can lose g. Matched by name and an all-float signature.
import binaryen from 'binaryen';

const NAMES = [
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atan2',
  'atanh',
  'cbrt',
  'ceil',
  'copysign',
  'cos',
  'cosh',
  'erf',
  'erfc',
  'exp',
  'exp2',
  'expm1',
  'fabs',
  'fdim',
  'floor',
  'fma',
  'fmax',
  'fmin',
  'fmod',
  'hypot',
  'log',
  'log10',
  'log1p',
  'log2',
  'logb',
  'nearbyint',
  'pow',
  'remainder',
  'rint',
  'round',
  'sin',
  'sinh',
  'sqrt',
  'tan',
  'tanh',
  'tgamma',
  'lgamma',
  'trunc',
];
const FUNCTIONAL = new Set(NAMES.flatMap((name) => [name, `${name}f`, `${name}l`]));

/** Whether a defined function is a functional math routine: its name (C's) and float parameters and result. */
export function isFunctionalMath(name: string, params: number[], result: number): boolean {
  const float = (type: number) => type === binaryen.f64 || type === binaryen.f32;
  return FUNCTIONAL.has(name) && params.length > 0 && params.every(float) && float(result);
}
