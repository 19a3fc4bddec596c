// `taintlens-cc` / `taintlens-c++`: a compiler wrapper for Makefiles (`make CC=taintlens-cc`).
// It calls clang for wasm32-wasi with -g (so reports get source lines from DWARF), and after a link
// step instruments the linked module like `taintlens instrument`: the plain module stays at `-o`
// (what `taintlens loops`/`taint` analyse), the instrumented one and its site table go beside it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { instrumentModule, parseModes } from '../../instrument/pipeline.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic-write.js';
import { sha256Of } from '../util/hash.js';
import { messageOf } from '../util/errors.js';

export type Language = 'c' | 'c++';

export interface WrapperPlan {
  compiler: string;
  args: string[];
  /** The linked module to instrument, or null for compile-only steps (-c, -S, -E, -M). */
  linkOutput: string | null;
  modes: string[];
}

const MODE_OPTION = '--taintlens-mode=';

/** Finds clang: $TAINTLENS_CLANG, else clang / clang++ or a versioned clang-NN on PATH. */
export function findClang(language: Language, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.TAINTLENS_CLANG) return env.TAINTLENS_CLANG;
  const base = language === 'c' ? 'clang' : 'clang++';
  const names = [base, ...Array.from({ length: 10 }, (_, i) => `${base}-${20 - i}`)];
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of names) for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/** The clang command line for `args`, and what to instrument afterwards. */
export function planCompile(args: string[], compiler: string, env: NodeJS.ProcessEnv = process.env): WrapperPlan {
  let modeText = env.TAINTLENS_MODE ?? 'loops';
  const passThrough: string[] = [];
  for (const arg of args) {
    if (arg.startsWith(MODE_OPTION)) modeText = arg.slice(MODE_OPTION.length);
    else passThrough.push(arg);
  }
  const modes = modeText === 'none' ? [] : parseModes(modeText);
  const extra: string[] = [];
  if (!passThrough.some((a) => a.startsWith('--target=') || a === '-target')) extra.push('--target=wasm32-wasi');
  if (!passThrough.some((a) => /^-g/.test(a))) extra.push('-g');
  const compileOnly = passThrough.some((a) => ['-c', '-S', '-E', '-M', '-MM', '-fsyntax-only'].includes(a));
  const hasInputs = passThrough.some((a) => !a.startsWith('-') && /\.(c|cc|cpp|cxx|o|a|s)$/i.test(a));
  const outIndex = passThrough.indexOf('-o');
  const output =
    outIndex >= 0
      ? (passThrough[outIndex + 1] ?? null)
      : (passThrough.find((a) => a.startsWith('-o') && a.length > 2)?.slice(2) ?? 'a.out');
  return { compiler, args: [...extra, ...passThrough], linkOutput: compileOnly || !hasInputs ? null : output, modes };
}

/** Runs the wrapper; returns the exit code. */
export function runWrapper(language: Language, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const name = language === 'c' ? 'taintlens-cc' : 'taintlens-c++';
  const compiler = findClang(language, env);
  if (!compiler) {
    process.stderr.write(
      `${name}: clang not found on PATH (install clang with wasm32-wasi support and wasi-libc, or set TAINTLENS_CLANG)\n`,
    );
    return 127;
  }
  let plan: WrapperPlan;
  try {
    plan = planCompile(args, compiler, env);
  } catch (error) {
    process.stderr.write(
      `${name}: ${messageOf(error)} (TAINTLENS_MODE or ${MODE_OPTION}MODES; "none" to only compile)\n`,
    );
    return 2;
  }
  const result = spawnSync(plan.compiler, plan.args, { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`${name}: cannot run ${plan.compiler}: ${result.error.message}\n`);
    return 127;
  }
  if (result.status !== 0) return result.status ?? 1;
  if (!plan.linkOutput || plan.modes.length === 0) return 0;
  try {
    const bytes = new Uint8Array(readFileSync(plan.linkOutput));
    const instrumented = instrumentModule(bytes, plan.linkOutput, plan.modes);
    const output = `${plan.linkOutput.replace(/\.wasm$/, '')}.${plan.modes.join('+')}.wasm`;
    const sitesFile = `${output.replace(/\.wasm$/, '')}.sites.json`;
    writeFileAtomic(output, instrumented.bytes);
    writeJsonAtomic(sitesFile, {
      ...instrumented.sites,
      instrumented: { file: output, sha256: sha256Of(instrumented.bytes) },
    });
    return 0;
  } catch (error) {
    process.stderr.write(`${name}: ${messageOf(error)}\n`);
    return 1;
  }
}
