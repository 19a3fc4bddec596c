// With --json the document goes to stdout and its warnings (a full context tree, dropped samples,
// runs too short to time) also to stderr, so incomplete counts are never silent.
import { afterEach, expect, test, vi } from 'vitest';
import { emit } from '../../src/cli/output.js';
import { treeFullWarning } from '../../src/profile/tree-full.js';

afterEach(() => vi.restoreAllMocks());

function captured(json: boolean, warnings: string[]): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  emit(json, { schema: 'taintlens/x@1' }, () => `table\n${warnings.join('\n')}`, warnings);
  vi.restoreAllMocks();
  return { stdout, stderr };
}

test('--json: the warnings go to stderr as well, each once with one prefix', () => {
  const warnings = [treeFullWarning(12, 1 << 20), 'more than 16 parameters: q got no label'];
  const { stdout, stderr } = captured(true, warnings);
  expect(JSON.parse(stdout)).toEqual({ schema: 'taintlens/x@1' });
  expect(stderr.split('\n').filter(Boolean)).toEqual([warnings[0], 'warning: more than 16 parameters: q got no label']);
});

test('text: the warnings are in the text only', () => {
  const { stdout, stderr } = captured(false, [treeFullWarning(12)]);
  expect(stdout).toContain('warning: the calling-context tree filled');
  expect(stderr).toBe('');
});
