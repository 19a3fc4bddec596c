// `taintlens run` of a module `taintlens instrument` wrote: its program's memory starts at the
// layout's programBase, which only the site table written beside it records. With the table the
// module runs as the original would (instrumentation never changes what it computes); without it,
// a run would hand WASI and AssemblyScript host calls the wrong addresses, so it is refused.
import { existsSync } from 'node:fs';
import { instrumentationMark } from '../../instrument/instrumented.js';
import { definedMemoryPages } from '../../instrument/binary-patch.js';
import { initialRealPages, type MemoryLayout } from '../../instrument/memory-plan.js';
import { readInputText } from '../util/read-file.js';
import { fileError } from '../util/errors.js';
import { sha256Of } from '../util/hash.js';

/** Where the site table `taintlens instrument` writes by default: `x.loops.wasm` → `x.loops.sites.json`. */
export function siteTableBeside(file: string): string {
  return file.replace(/\.wasm$/, '') + '.sites.json';
}

/** Program address 0 in the module's memory: 0 for a module Taintlens did not write. */
export function programBaseOf(file: string, bytes: Uint8Array): number {
  const mark = instrumentationMark(bytes);
  if (mark === null) return 0;
  const sitesFile = siteTableBeside(file);
  const refuse = (why: string) =>
    fileError(
      file,
      `was written by \`taintlens instrument\` (it exports ${mark}) and ${why}: run the original module, or keep the site table beside it`,
    );
  if (!existsSync(sitesFile))
    throw refuse(`its site table ${sitesFile} is not beside it, so where its program's memory starts is unknown`);
  const table = siteTable(sitesFile);
  const layout = table?.layout;
  if (!layout || !Number.isInteger(layout.programBase))
    throw refuse(`${sitesFile} is not its site table (no memory layout)`);
  // Tables written by `taintlens instrument` name the module's hash; older ones only its memory size.
  const hash = table.instrumented?.sha256;
  const pages = definedMemoryPages(bytes);
  if (hash !== undefined ? hash !== sha256Of(bytes) : pages !== null && pages !== initialRealPages(layout)) {
    throw refuse(
      `${sitesFile} does not describe it (it was written for ${table.instrumented?.file ?? 'another module'})`,
    );
  }
  return layout.programBase;
}

interface SiteTableHeader {
  layout?: MemoryLayout | null;
  instrumented?: { file?: string; sha256?: string };
}

function siteTable(sitesFile: string): SiteTableHeader | null {
  try {
    const table = JSON.parse(readInputText(sitesFile)) as SiteTableHeader & { schema?: unknown };
    return table.schema === 'taintlens/sites@1' ? table : null;
  } catch {
    return null;
  }
}
