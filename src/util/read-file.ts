// Reading an input file with a one-line error that names it: "m.jsonl: no such file".
import { readFileSync } from 'node:fs';
import { fileError, messageOf } from './errors.js';

export function readInputFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw fileError(file, 'no such file');
    if (code === 'EISDIR') throw fileError(file, 'is a directory');
    if (code === 'EACCES') throw fileError(file, 'permission denied');
    throw fileError(file, `cannot read (${code ?? messageOf(error)})`);
  }
}

export function readInputText(file: string): string {
  return readInputFile(file).toString('utf8');
}
