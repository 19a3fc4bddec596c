// Recognises a module built for a host Taintlens is not: Go's js/wasm (imports `go`/`gojs`),
// Emscripten's JavaScript runtime (emscripten_* and __syscall_* imports from `env`), WASI preview 0,
// and a WASI reactor that imports functions only its own JavaScript loader supplies. One line names
// the host and what to do instead, rather than a link error about the first missing import.

export interface ImportDescriptor {
  module: string;
  name: string;
}

/** Import modules Taintlens supplies (the WASI host, AssemblyScript's env, its own APIs). */
const PROVIDED = new Set(['wasi_snapshot_preview1', 'env', 'taintlens', 'taintlens_mp']);
const EMSCRIPTEN_NAME = /^(_?emscripten_|__syscall_|_embind_|__cxa_throw$|invoke_[a-z]+$)/;

function example(imports: ImportDescriptor[]): string {
  const first = imports[0]!;
  return `${first.module}.${first.name}${imports.length > 1 ? ` and ${imports.length - 1} more` : ''}`;
}

/** Why the module cannot run under Taintlens's host, or null when nothing says so. */
export function foreignHost(imports: ImportDescriptor[], exports: string[]): string | null {
  const go = imports.filter((i) => i.module === 'go' || i.module === 'gojs');
  if (go.length > 0) {
    return (
      `built by Go for its js/wasm host (imports ${example(go)}), which runs it from wasm_exec.js: ` +
      'Taintlens runs WASI modules; rebuild it with GOOS=wasip1 GOARCH=wasm (Go 1.21 or later)'
    );
  }
  const emscripten = imports.filter((i) => i.module === 'env' && EMSCRIPTEN_NAME.test(i.name));
  if (emscripten.length > 0) {
    return (
      `built by Emscripten for its JavaScript runtime (imports ${example(emscripten)}): ` +
      'rebuild it as a standalone WASI module (emcc -sSTANDALONE_WASM, or clang --target=wasm32-wasi)'
    );
  }
  const preview0 = imports.filter((i) => i.module === 'wasi_unstable');
  if (preview0.length > 0) {
    return `built for WASI preview 0 (imports ${example(preview0)}): Taintlens's host speaks wasi_snapshot_preview1; rebuild it with a current WASI SDK`;
  }
  const wasi = imports.some((i) => i.module === 'wasi_snapshot_preview1');
  const foreign = imports.filter((i) => !PROVIDED.has(i.module));
  if (wasi && !exports.includes('_start') && foreign.length > 0) {
    const modules = [...new Set(foreign.map((i) => i.module))];
    return (
      `a WASI reactor that needs its own host: it imports ${foreign.length} function(s) from ${modules.map((m) => `'${m}'`).join(', ')} ` +
      `(e.g. ${example(foreign)}), which only the JavaScript loader it ships with supplies; run it there, or build a WASI command (with _start) of the program`
    );
  }
  return null;
}
