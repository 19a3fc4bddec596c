// The version `taintlens --version` prints: package.json's, found above this file (src/ or dist/src/).
import { packageRoot } from '../util/package-root.js';

export function packageVersion(): string {
  return packageRoot()?.version ?? 'unknown';
}
