// The instrumentation cache's size bound: entries (KEY.wasm + KEY.sites.json [+ KEY.facts]) are dropped least
// recently used first until the cache holds at most its limit. A hit touches its entry (mtime), so
// use, not creation, orders them. Default 1 GiB; TAINTLENS_CACHE_MAX_MB changes it.
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../src/util/errors.js';

export const DEFAULT_CACHE_MAX_BYTES = 1 << 30;

/** The limit from $TAINTLENS_CACHE_MAX_MB (MiB), else the default. */
export function cacheMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.TAINTLENS_CACHE_MAX_MB;
  if (text === undefined || text.trim() === '') return DEFAULT_CACHE_MAX_BYTES;
  const mib = Number(text);
  if (!Number.isFinite(mib) || mib < 0)
    throw new UserError(`TAINTLENS_CACHE_MAX_MB: "${text}" is not a size in MiB`, 2);
  return Math.floor(mib * (1 << 20));
}

const ENTRY_FILE = /^([0-9a-f]{64})\.(wasm|sites\.json|facts)$/;

/** The files of an entry (`.facts`: a sample table's packed facts, facts-file.ts). */
const ENTRY_SUFFIXES = ['.wasm', '.sites.json', '.facts'];

interface Entry {
  key: string;
  bytes: number;
  used: number;
}

function entries(dir: string): Entry[] {
  const byKey = new Map<string, Entry>();
  for (const name of readdirSync(dir)) {
    const match = ENTRY_FILE.exec(name);
    if (!match) continue;
    let stat;
    try {
      stat = statSync(join(dir, name));
    } catch {
      continue; // removed by a concurrent run
    }
    const entry = byKey.get(match[1]!) ?? { key: match[1]!, bytes: 0, used: 0 };
    entry.bytes += stat.size;
    entry.used = Math.max(entry.used, stat.mtimeMs);
    byKey.set(entry.key, entry);
  }
  return [...byKey.values()];
}

/** Marks an entry as just used. */
export function touchEntry(dir: string, key: string): void {
  const now = new Date();
  for (const suffix of ENTRY_SUFFIXES) {
    try {
      utimesSync(join(dir, key + suffix), now, now);
    } catch {
      // An entry that vanished is written again on its next miss.
    }
  }
}

/** Drops least recently used entries (never `keep`) until the cache holds at most `maxBytes`. Returns the keys dropped. */
export function pruneCache(dir: string, maxBytes: number, keep?: string): string[] {
  const all = entries(dir).sort((a, b) => a.used - b.used || a.key.localeCompare(b.key));
  let total = all.reduce((sum, e) => sum + e.bytes, 0);
  const dropped: string[] = [];
  for (const entry of all) {
    if (total <= maxBytes) break;
    if (entry.key === keep) continue;
    for (const suffix of ENTRY_SUFFIXES) rmSync(join(dir, entry.key + suffix), { force: true });
    total -= entry.bytes;
    dropped.push(entry.key);
  }
  return dropped;
}
