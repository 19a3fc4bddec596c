// AssemblyScript compiler transform, referenced from asconfig.json.
//
// Taintlens profiles loops per function of the compiled wasm. At -O3 Binaryen
// inlines small functions (AssemblyScript even allows inlining functions that
// contain loops), which would move kernel loops into their callers and make
// the per-function loop structure depend on inliner heuristics.
//
// Right after compilation, before the optimizer runs, this transform flags
// every top-level function defined in the project's own AssemblyScript sources
// (`assembly/**`) as "never inline" (neither fully nor partially) by running
// Binaryen's `no-inline` pass on it. Everything else is optimized as usual:
// standard library functions and class members (constructors, field
// accessors) are still inlined, and all other optimizations still apply to
// the kernel functions. Functions marked `@inline` in the sources (e.g.
// `param`) are inlined by the AssemblyScript compiler itself and never exist
// as functions of their own.

/**
 * Internal AssemblyScript name of a top-level function in a project source
 * file, e.g. "assembly/kernels/matmul/multiply" (no class member "#",
 * no namespace member "."), after removing generic type arguments.
 */
const PROJECT_TOP_LEVEL_FUNCTION = /^assembly\/(?:[\w-]+\/)*[\w$~|]+$/;

export function isKeptFunction(internalName) {
  return PROJECT_TOP_LEVEL_FUNCTION.test(internalName.replace(/<.*>$/, ''));
}

export default class KeepKernelFunctions {
  afterCompile(module) {
    const binaryen = this.binaryen;
    const kept = [];
    for (let i = 0, n = module.getNumFunctions(); i < n; i++) {
      const { name } = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
      if (isKeptFunction(name)) kept.push(name);
    }
    for (const name of kept) {
      // A pattern without wildcards matches exactly one function name.
      if (/[*?]/.test(name)) throw new Error(`cannot protect function with wildcard in its name: ${name}`);
      binaryen.setPassArgument('no-inline', name);
      module.runPasses(['no-inline']);
    }
    binaryen.clearPassArguments();
  }
}
