// The progress bar on a terminal: drawn while work runs, gone when it stops, and never erasing the
// result printed after it (measure's summary line was erased by its own bar).
import { afterEach, expect, test, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProgress } from '../../src/util/progress.js';
import { main } from '../../src/cli/main.js';
import { Screen } from '../helpers/terminal.js';
import { wat } from '../helpers/wat.js';
import { tempDir } from '../helpers/temp.js';

function fakeTty(screen: Screen): NodeJS.WriteStream {
  return {
    isTTY: true,
    columns: 100,
    write: (chunk: string) => (screen.write(String(chunk)), true),
  } as unknown as NodeJS.WriteStream;
}

afterEach(() => {
  vi.restoreAllMocks();
});

test('the terminal emulator follows the escapes the bar uses', () => {
  const screen = new Screen();
  screen.write('keep\n\x1b7bar [###] 1/3\x1b8\x1b[1G\x1b[2Kdone\n');
  expect(screen.text()).toEqual(['keep', 'done']);
});

test('a bar is drawn while work runs and erased by stop, leaving the cursor where it started', () => {
  const screen = new Screen();
  screen.write('before\n');
  const progress = startProgress(3, 'measuring', true, fakeTty(screen));
  progress.tick('n=1');
  expect(screen.text()).toEqual(['before', expect.stringMatching(/^measuring \[.*\] \d\/3/)]);
  progress.tick('n=2');
  progress.tick('n=3');
  progress.stop();
  progress.stop();
  screen.write('summary\n');
  expect(screen.text()).toEqual(['before', 'summary']);
});

test('no bar when not enabled or for a single step', () => {
  const screen = new Screen();
  startProgress(5, 'x', false, fakeTty(screen)).tick();
  startProgress(1, 'x', true, fakeTty(screen)).tick();
  expect(screen.text()).toEqual([]);
});

test("measure's summary line survives its progress bar on a terminal", async () => {
  const dir = tempDir('taintlens-progress-');
  const kernel = join(dir, 'count.wasm');
  writeFileSync(
    kernel,
    wat(`(module (func (export "run") (param $n i32) (result i32) (local $i i32)
    (loop $l (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (local.get $i)))`),
  );
  const screen = new Screen();
  const draw = (chunk: unknown) => (screen.write(String(chunk)), true);
  vi.spyOn(process.stdout, 'write').mockImplementation(draw);
  vi.spyOn(process.stderr, 'write').mockImplementation(draw);
  const isTTY = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
  let code: number;
  try {
    code = await main([
      'measure',
      kernel,
      '--vary',
      'n=arg0:1,2,3',
      '--metrics',
      'instructions',
      '-o',
      join(dir, 'm.jsonl'),
    ]);
  } finally {
    if (isTTY) Object.defineProperty(process.stderr, 'isTTY', isTTY);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
  }
  expect(code).toBe(0);
  expect(screen.text()).toEqual([expect.stringMatching(/m\.jsonl: 3 point\(s\) measured, 0 already there/)]);
});
