// `taintlens instrument`'s action: instruments the module and writes it with its site table.
import { checkOutputFile, writeFileAtomic, writeJsonAtomic } from '../../util/atomic-write.js';
import { readFileSync } from 'node:fs';
import { fileError, UserError } from '../../util/errors.js';
import { sha256Of } from '../../util/hash.js';
import { emit } from '../output.js';
import { parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import {
  instrumentModule,
  parseModes,
  type InstrumentedSites,
  type InstrumentOptions,
} from '../../../instrument/pipeline.js';
import { instrumentInThread, isolates } from '../../runtime/isolated-instrument.js';
import { readWasmFile } from '../../../instrument/module-io.js';
import { splitPackedFacts } from '../../../instrument/facts-file.js';
import { parseFunctionList } from '../../taint/function-list.js';

interface InstrumentCommandOptions extends InstrumentCliOptions {
  mode: string;
  output?: string;
  sites?: string;
  json?: boolean;
  functions?: string;
}

/** The `--functions` list (taint/function-list.ts): names, and those marked cold. */
function readFunctionList(file: string, modes: string[]): { functions: string[]; cold: string[] } {
  if (!modes.includes('taint')) throw new UserError(`--functions: only the taint mode takes a function list`, 2);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw fileError(file, `cannot read the function list: ${(error as Error).message}`);
  }
  return parseFunctionList(text);
}

export async function instrumentAction(file: string, options: InstrumentCommandOptions): Promise<void> {
  let modes: string[];
  try {
    modes = parseModes(options.mode);
  } catch (error) {
    throw new UserError((error as Error).message, 2);
  }
  const bytes = readWasmFile(file);
  const output = options.output ?? file.replace(/\.wasm$/, '') + `.${modes.join('+')}.wasm`;
  const sitesFile = options.sites ?? output.replace(/\.wasm$/, '') + '.sites.json';
  checkOutputFile(output);
  checkOutputFile(sitesFile);
  const listed = options.functions !== undefined ? readFunctionList(options.functions, modes) : undefined;
  const instrumentOptions = parseInstrumentOptions(options);
  const result = await instrumentSplit(
    bytes,
    file,
    modes,
    listed
      ? {
          ...instrumentOptions,
          taint: {
            ...instrumentOptions.taint,
            functions: listed.functions,
            ...(listed.cold.length > 0 ? { cold: listed.cold } : {}),
          },
        }
      : instrumentOptions,
  );
  if (listed) {
    const known = new Set(result.sites.functions.map((f) => f.name));
    const unknown = listed.functions.filter((name) => !known.has(name));
    if (unknown.length > 0)
      throw fileError(
        options.functions!,
        `${unknown.length} name(s) are not functions of ${file}: ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', …' : ''}`,
      );
  }
  writeFileAtomic(output, result.bytes);
  const factsFile = result.facts ? factsFileBeside(sitesFile) : undefined;
  if (result.facts) writeFileAtomic(factsFile!, result.facts);
  // The table names the module it describes, so `taintlens run` can tell it is this one's.
  writeJsonAtomic(sitesFile, {
    ...result.sites,
    instrumented: { file: output, sha256: sha256Of(result.bytes), ...(factsFile ? { facts: factsFile } : {}) },
  });
  const summary = {
    schema: 'taintlens/instrument@1',
    module: file,
    modes,
    output,
    sites: sitesFile,
    ...(factsFile ? { facts: factsFile } : {}),
    functions: result.sites.functions.length,
    ...(result.sites.analysed ? { analysed: result.sites.analysed } : {}),
    loops: result.sites.loops.length,
    calls: result.sites.calls.length,
    bytes: { before: bytes.length, after: result.bytes.length },
  };
  emit(
    options.json === true,
    summary,
    () =>
      `wrote ${output} (${result.bytes.length.toLocaleString('en-US')} bytes, was ${bytes.length.toLocaleString('en-US')})\n` +
      `wrote ${sitesFile}: ${summary.functions} functions, ` +
      (result.sites.analysed === 'functions'
        ? 'loops and call sites not analysed by this mode'
        : `${summary.loops} loops, ${summary.calls} call sites`) +
      (factsFile ? `\nwrote ${factsFile}: the sampling pass's flow facts` : ''),
  );
}

/**
 * The instrumented module and its table, a sample table's packed facts split out to go to a binary
 * file beside it (facts-file.ts), as in the cache: as JSON they were most of yosys's 2 GB table,
 * longer than `taintlens run` could read back. A large module is instrumented in a worker thread
 * (isolated-instrument.ts), which hands the facts over already split; nothing is cached.
 */
async function instrumentSplit(
  bytes: Uint8Array,
  file: string,
  modes: string[],
  options: InstrumentOptions,
): Promise<{ bytes: Uint8Array; sites: InstrumentedSites; facts: Uint8Array[] | Uint8Array | null }> {
  if (isolates(bytes)) return instrumentInThread(bytes, file, modes, options, { minBytes: Infinity });
  const result = instrumentModule(bytes, file, modes, options);
  const split = splitPackedFacts(result.sites);
  return { bytes: result.bytes, sites: split ? split.table : result.sites, facts: split ? split.facts : null };
}

/** The packed facts' file beside a site table: `x.sites.json` → `x.sites.facts`. */
function factsFileBeside(sitesFile: string): string {
  return sitesFile.replace(/\.json$/, '') + '.facts';
}
