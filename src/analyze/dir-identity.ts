// An analysis folder belongs to one program: the module (by content) and the export it invokes. A
// rerun of the same program resumes there; another program is refused before anything in the folder
// is overwritten (its taint report, its measurements). Arguments are the experiment's to judge: its
// campaign identity tells a changed fixed argument from a varied one whose base moved.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Of } from '../util/hash.js';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { fileError } from '../util/errors.js';
import type { AnalysisConfig } from './config.js';

const IDENTITY_FILE = 'analysis-identity.json';

interface AnalysisIdentity {
  module: string;
  sha256: string;
  invoke: string | null;
}

export function claimAnalysisDir(dir: string, file: string, bytes: Uint8Array, config: AnalysisConfig): void {
  const path = join(dir, IDENTITY_FILE);
  const mine: AnalysisIdentity = { module: file, sha256: sha256Of(bytes), invoke: config.invoke };
  let kept: AnalysisIdentity | null = null;
  try {
    kept = JSON.parse(readFileSync(path, 'utf8')) as AnalysisIdentity;
  } catch {
    // a new folder (or a torn file from an interrupted first run): claimed below
  }
  if (kept && (kept.sha256 !== mine.sha256 || kept.invoke !== mine.invoke)) {
    const what =
      kept.sha256 !== mine.sha256
        ? `another module (${kept.module})`
        : `another export of the module (${kept.invoke ?? '_start'})`;
    throw fileError(dir, `holds the analysis of ${what}; give another --out, or remove the folder`);
  }
  if (!kept) writeJsonAtomic(path, mine);
}
