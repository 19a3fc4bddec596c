// `asc kernel.ts --transform taintlens/transform`: instruments the module asc emits, so one flag turns
// a normal AssemblyScript build into a profiled / tainted build. asc optimizes after `afterCompile`
// with its own Binaryen, so the hook wraps the module's emitBinary: the optimized binary (and its
// source map, for source lines) is what gets instrumented, exactly as `taintlens instrument` would
// instrument the plain build. Options come from the environment:
//   TAINTLENS_MODE   instrumentation modes (default loops; see `taintlens instrument --mode`)
//   TAINTLENS_SITES  where to write the site table (default: <outFile minus .wasm>.sites.json, where
//                    `taintlens run` looks for it, for the --outFile/-o of the asc command line)
import { writeJsonAtomic } from '../util/atomic-write.js';
import { sha256Of } from '../util/hash.js';
import { instrumentModule, parseModes } from '../../instrument/pipeline.js';

interface EmittingModule {
  emitBinary(sourceMapUrl?: string | null): Uint8Array | { binary: Uint8Array; sourceMap: string };
}

export interface TransformSettings {
  modes: string[];
  sitesFile: string | null;
  outFile: string | null;
}

export function transformSettings(
  env: NodeJS.ProcessEnv = process.env,
  argv: string[] = process.argv,
): TransformSettings {
  const modes = parseModes(env.TAINTLENS_MODE ?? 'loops');
  const at = argv.findIndex((a) => a === '--outFile' || a === '-o');
  const outFile = at >= 0 ? (argv[at + 1] ?? null) : (argv.find((a) => a.startsWith('--outFile='))?.slice(10) ?? null);
  const sitesFile = env.TAINTLENS_SITES ?? (outFile ? `${outFile.replace(/\.wasm$/, '')}.sites.json` : null);
  return { modes, sitesFile, outFile };
}

/** Instruments what `emitBinary` returns; the site table goes to `settings.sitesFile`. */
export function instrumentEmits(module: EmittingModule, settings: TransformSettings): void {
  const emit = module.emitBinary.bind(module);
  module.emitBinary = (sourceMapUrl?: string | null) => {
    const out = emit(sourceMapUrl);
    const plain = out instanceof Uint8Array ? out : out.binary;
    const sourceMap = out instanceof Uint8Array ? undefined : out.sourceMap || undefined;
    const name = settings.outFile ?? 'asc output';
    const result = instrumentModule(plain, name, settings.modes, sourceMap !== undefined ? { sourceMap } : {});
    if (settings.sitesFile) {
      writeJsonAtomic(settings.sitesFile, {
        ...result.sites,
        instrumented: { file: settings.outFile, sha256: sha256Of(result.bytes) },
      });
    }
    return out instanceof Uint8Array ? result.bytes : { binary: result.bytes, sourceMap: out.sourceMap };
  };
}

export default class TaintlensTransform {
  afterCompile(module: EmittingModule): void {
    const settings = transformSettings();
    if (!settings.sitesFile) {
      throw new Error('taintlens/transform: no place for the site table: pass --outFile to asc or set TAINTLENS_SITES');
    }
    instrumentEmits(module, settings);
  }
}
