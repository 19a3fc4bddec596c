// Durable atomic writes: the data is flushed (fsync) before the rename, and the folder after it,
// so a result reported written survives a crash or a power loss; appends are flushed too.
import { afterAll, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { appendDurably, writeFileAtomic, writeJsonAtomic } from '../../src/util/atomic-write.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasStrace = spawnSync('strace', ['-V']).status === 0;

test('a write replaces the file whole and leaves no temporary file behind', () => {
  const file = join(dir, 'out.json');
  writeFileSync(file, 'old');
  writeJsonAtomic(file, { schema: 'taintlens/x@1' });
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ schema: 'taintlens/x@1' });
  appendDurably(file, 'more\n');
  expect(readFileSync(file, 'utf8').endsWith('}\nmore\n')).toBe(true);
  expect(readdirSync(dir)).toEqual(['out.json']);
  expect(() => writeFileAtomic(dir, 'x')).toThrow(/is a directory/);
});

test.skipIf(!hasStrace)(
  'the system calls: write, fsync the file, rename, fsync the folder; an append is fsynced',
  () => {
    const script = join(dir, 'write.mts');
    const module = resolve('src/util/atomic-write.ts');
    writeFileSync(
      script,
      `import { writeFileAtomic, appendDurably } from ${JSON.stringify(module)};\nwriteFileAtomic(${JSON.stringify(join(dir, 'traced.txt'))}, 'data');\nappendDurably(${JSON.stringify(join(dir, 'traced.txt'))}, 'tail');\n`,
    );
    const traced = spawnSync(
      'strace',
      ['-f', '-qq', '-e', 'trace=openat,fsync,rename,renameat,renameat2', process.execPath, '--import', 'tsx', script],
      { encoding: 'utf8', cwd: resolve('.') },
    );
    expect(traced.status).toBe(0);
    expect(readFileSync(join(dir, 'traced.txt'), 'utf8')).toBe('datatail');
    // Only the calls on our files, in order: the temporary file, the rename, the folder, the append.
    const calls = traced.stderr
      .split('\n')
      .filter((line) => line.includes('traced.txt') || line.includes(`"${dir}"`) || /fsync\(|rename/.test(line))
      .map((line) => line.replace(/^\[pid\s+\d+\]\s*/, '').replace(/^\d+\s+/, ''));
    const open = (name: RegExp) => calls.findIndex((line) => line.startsWith('openat') && name.test(line));
    const fdOf = (index: number) => /= (\d+)$/.exec(calls[index] ?? '')?.[1];
    const temp = open(/\.traced\.txt\.\d+\.\d+\.tmp/);
    const rename = calls.findIndex((line) => /^rename/.test(line) && line.includes('traced.txt'));
    expect(temp).toBeGreaterThanOrEqual(0);
    expect(rename).toBeGreaterThan(temp);
    const syncedBefore = calls.slice(temp, rename).some((line) => line.startsWith(`fsync(${fdOf(temp)})`));
    expect(syncedBefore).toBe(true);
    const folder = calls.findIndex((line, i) => i > rename && line.startsWith('openat') && line.includes(`"${dir}"`));
    expect(folder).toBeGreaterThan(rename);
    expect(calls.slice(folder).some((line) => line.startsWith(`fsync(${fdOf(folder)})`))).toBe(true);
    const append = calls.findIndex(
      (line, i) => i > folder && line.startsWith('openat') && /traced\.txt", O_WRONLY\|O_CREAT\|O_APPEND/.test(line),
    );
    expect(append).toBeGreaterThan(folder);
    expect(calls.slice(append).some((line) => line.startsWith(`fsync(${fdOf(append)})`))).toBe(true);
  },
);
