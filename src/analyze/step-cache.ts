// A step's result kept in the analysis folder with the inputs it was computed from, so that a
// rerun into the same folder (after an interruption, or to redraw the report) reuses it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { writeJsonAtomic } from '../util/atomic-write.js';

export function inputKey(inputs: unknown): string {
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}

export async function cachedStep<T>(
  dir: string,
  name: string,
  key: string,
  compute: () => Promise<T>,
): Promise<{ value: T; reused: boolean }> {
  const file = join(dir, `${name}.json`);
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { key?: string; value?: T };
    if (kept.key === key && kept.value !== undefined) return { value: kept.value, reused: true };
  } catch {
    // not there yet, or torn: computed again
  }
  const value = await compute();
  writeJsonAtomic(file, { key, value });
  return { value, reused: false };
}
