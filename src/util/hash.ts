// Content hashes that identify a module across runs (campaign records, site tables).
import { createHash } from 'node:crypto';

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
