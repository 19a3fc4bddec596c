// Start-up cost: a command loads only its own action module. `run` of a plain module must not load
// Binaryen, nor the modules of other commands (taint, model). Checked by the modules a fresh
// process resolves (a loader hook lists them; that it lists run's action shows it works), not by
// timing.
import { expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..', '..');

/** The module URLs a fresh `taintlens ARGS` process (from source, through tsx) resolves. */
function loadedModules(args: string[], status = 0): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-startup-'));
  try {
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write('LOADED ' + resolved.url + '\\n');
  return resolved;
}\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
    );
    const entry = `import { main } from ${JSON.stringify(pathToFileURL(join(root, 'src/cli/main.ts')).href)}; process.exitCode = await main(${JSON.stringify(args)});`;
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', pathToFileURL(register).href, '--input-type=module', '-e', entry],
      { cwd: root, encoding: 'utf8' },
    );
    expect(result.status, result.stderr).toBe(status);
    return result.stderr
      .split('\n')
      .filter((line) => line.startsWith('LOADED '))
      .map((line) => line.slice('LOADED '.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("run of a plain module loads neither Binaryen nor another command's code", () => {
  const loaded = loadedModules(['run', 'build/kernels/matmul.wasm', '--args', '8']);
  expect(loaded.some((url) => url.includes('/src/cli/actions/run.'))).toBe(true);
  expect(loaded.filter((url) => url.includes('/node_modules/binaryen/'))).toEqual([]);
  expect(
    loaded.filter((url) =>
      /\/src\/(taint\/(?!coverage-mode\.)|model\/modeler|experiment\/experiment|cli\/actions\/(?!run\.))/.test(url),
    ),
  ).toEqual([]);
}, 60_000);
