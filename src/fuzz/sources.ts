// Where fuzz modules come from: Binaryen's `wasm-opt -ttf` (the pinned one, see ttf.ts), our own
// generator, or a directory of saved modules (the committed corpus).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTtf } from './ttf.js';
import { generateModule } from './generator.js';

export type SourceKind = 'ttf' | 'gen';

export interface Case {
  seed: number;
  source: string;
  /** Given for saved modules; generated from the seed otherwise. */
  bytes?: Uint8Array;
}

/** `mixed` alternates ttf (even seeds) and gen (odd seeds): what a seed means never depends on the machine. */
export function sourceFor(kind: string, seed: number): SourceKind {
  if (kind === 'ttf' || kind === 'gen') return kind;
  if (kind === 'mixed') return seed % 2 === 0 ? 'ttf' : 'gen';
  throw new Error(`unknown source '${kind}' (ttf, gen, mixed, or a directory)`);
}

export function generate(source: SourceKind, seed: number): Uint8Array {
  return source === 'ttf' ? generateTtf(seed) : generateModule(seed);
}

/** Modules saved in a directory, named `<anything>-<seed>.wasm` (the seed drives the call arguments). */
export function corpusCases(dir: string): Case[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.wasm'))
    .sort()
    .map((name, index) => {
      const match = /(\d+)\.wasm$/.exec(name);
      return {
        seed: match ? Number(match[1]) : index,
        source: `corpus:${name}`,
        bytes: new Uint8Array(readFileSync(join(dir, name))),
      };
    });
}
