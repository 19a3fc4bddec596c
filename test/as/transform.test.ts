// `asc --transform taintlens/transform` from a project that installed taintlens: the module asc
// writes is byte-for-byte what `taintlens instrument` makes of the plain build, its site table
// (with AS source lines) sits where `taintlens run` finds it, and both runs agree.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { instrumentModule } from '../../instrument/pipeline.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const root = resolve('.');

function ascWithTransform(project: string, out: string, mode: string) {
  return spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/assemblyscript/bin/asc.js'),
      join(root, 'assembly/kernels/matmul.ts'),
      '--baseDir',
      root,
      '--config',
      'asconfig.json',
      '--target',
      'kernels',
      '--sourceMap',
      '--outFile',
      out,
      '--transform',
      'taintlens/transform',
    ],
    { cwd: project, encoding: 'utf8', env: { ...process.env, TAINTLENS_MODE: mode } },
  );
}

describe('AssemblyScript transform', () => {
  it.each(['loops', 'taint'])('--mode %s: the same module and site table as the post-link path', async (mode) => {
    const project = tempDir('taintlens-as-');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(root, join(project, 'node_modules', 'taintlens'));
    const out = join(project, 'matmul.wasm');
    const built = ascWithTransform(project, out, mode);
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const plain = 'build/kernels/matmul.wasm';
    const reference = instrumentModule(new Uint8Array(readFileSync(plain)), plain, [mode]);
    expect(Buffer.from(readFileSync(out)).equals(Buffer.from(reference.bytes))).toBe(true);
    const sites = JSON.parse(readFileSync(join(project, 'matmul.sites.json'), 'utf8'));
    expect(sites.loops).toEqual(reference.sites.loops);
    expect(sites.loops.find((l: { depth: number }) => l.depth === 3).location).toEqual({
      file: 'assembly/kernels/matmul.ts',
      line: 22,
    });
    if (mode === 'loops') {
      const viaTransform = JSON.parse((await cli(['run', out, '--args', '9', '--json'])).stdout);
      const direct = JSON.parse((await cli(['run', plain, '--args', '9', '--json'])).stdout);
      expect(viaTransform.result).toBe(direct.result);
    }
  });

  it('is exported as taintlens/transform', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.exports['./transform']).toBe('./dist/src/as/transform.js');
  });
});
