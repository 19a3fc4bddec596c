#!/usr/bin/env node
// Compiles every AssemblyScript kernel in assembly/kernels/*.ts to
// build/kernels/<name>.wasm with the shared options from asconfig.json
// (stub runtime, -O3, name section, kernel functions kept out of line).
//
// Usage: node scripts/build-kernels.js [kernel ...]   (default: all kernels)
// Exits non-zero if any kernel fails to compile or lacks function names.
//
// Notes on the options in asconfig.json:
// - "debug": true is what makes Binaryen write the name section (function
//   names are required by the loop profiler); --sourceMap does not. It does
//   not change the generated code: -O3 with and without it yields identical
//   code sections for all kernels.
// - --sourceMap writes <kernel>.wasm.map beside each module: taintlens reads it for the source
//   lines of functions, loops and calls (instrument/debug/source-map.ts).
// - The kernel build uses the target "kernels", which adds the transform
//   scripts/asc-keep-functions.js (other asc invocations from the repository
//   root get the shared options without it). asc resolves the transform path
//   relative to the config file only when --baseDir is absolute, hence
//   --baseDir <repo root>.

import asc from 'assemblyscript/asc';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const sourceDir = join(root, 'assembly', 'kernels');
const outDir = join(root, 'build', 'kernels');

/** Decodes an unsigned LEB128 number at `offset`; returns [value, nextOffset]. */
function readVarUint(bytes, offset) {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (offset >= bytes.length) throw new Error('truncated LEB128 number');
    const byte = bytes[offset++];
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [result, offset];
    shift += 7;
  }
}

/** Returns the function names recorded in the binary's "name" custom section. */
function functionNames(bytes) {
  const names = [];
  const decoder = new TextDecoder();
  let offset = 8; // magic + version
  while (offset < bytes.length) {
    const id = bytes[offset++];
    let size;
    [size, offset] = readVarUint(bytes, offset);
    const end = offset + size;
    if (id === 0) {
      let nameLength;
      let pos;
      [nameLength, pos] = readVarUint(bytes, offset);
      const sectionName = decoder.decode(bytes.subarray(pos, pos + nameLength));
      pos += nameLength;
      if (sectionName === 'name') {
        while (pos < end) {
          const subsection = bytes[pos++];
          let subsectionSize;
          [subsectionSize, pos] = readVarUint(bytes, pos);
          const subsectionEnd = pos + subsectionSize;
          if (subsection === 1) {
            let count;
            [count, pos] = readVarUint(bytes, pos);
            for (let i = 0; i < count; i++) {
              let length;
              [, pos] = readVarUint(bytes, pos); // the function index
              [length, pos] = readVarUint(bytes, pos);
              names.push(decoder.decode(bytes.subarray(pos, pos + length)));
              pos += length;
            }
          }
          pos = subsectionEnd;
        }
      }
    }
    offset = end;
  }
  return names;
}

async function listKernels() {
  const files = await readdir(sourceDir);
  return files
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function buildKernel(name) {
  const entry = relative(root, join(sourceDir, `${name}.ts`));
  const outFile = relative(root, join(outDir, `${name}.wasm`));
  const started = performance.now();
  const { error } = await asc.main(
    [entry, '--baseDir', root, '--config', 'asconfig.json', '--target', 'kernels', '--outFile', outFile, '--sourceMap'],
    { stdout: process.stdout, stderr: process.stderr },
  );
  if (error) throw new Error(`${name}: ${error.message}`);
  const bytes = await readFile(join(root, outFile));
  const names = functionNames(bytes);
  if (!names.some((n) => n.startsWith(`assembly/kernels/${name}/`))) {
    throw new Error(`${name}: ${outFile} has no function names for assembly/kernels/${name}/* in its name section`);
  }
  const ms = performance.now() - started;
  console.log(`  ${outFile.padEnd(36)} ${String(bytes.length).padStart(6)} bytes  ${ms.toFixed(0).padStart(5)} ms`);
}

async function main() {
  const available = await listKernels();
  const requested = process.argv.slice(2);
  for (const name of requested) {
    if (!available.includes(name)) throw new Error(`unknown kernel '${name}' (available: ${available.join(', ')})`);
  }
  const kernels = requested.length > 0 ? requested : available;
  console.log(`Building ${kernels.length} AssemblyScript kernel(s) into ${relative(root, outDir)}/`);
  const failures = [];
  for (const name of kernels) {
    try {
      await buildKernel(name);
    } catch (err) {
      failures.push(name);
      console.error(`  FAILED ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (failures.length > 0) {
    console.error(`${failures.length} kernel(s) failed: ${failures.join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
