// One status column in plain words, and only the flags that change what the user should do
// (issue 28.5): the stencil's init is a flattened size³ loop, which the taint analysis sees as one
// loop over size: beyond-nest there is not a fault, so the table leaves it to the JSON.
import { describe, expect, test } from 'vitest';
import { cli } from '../helpers/cli.js';

const args = [
  'model',
  'test/model/fixtures/stencil.jsonl',
  '--taint',
  'test/model/fixtures/stencil.taint.json',
  '--wide',
];

describe('the models table: status and flags', () => {
  test('exact rows read exact, beyond-nest on an exact count stays in the JSON, a legend explains the statuses', async () => {
    const { stdout } = await cli(args);
    expect(stdout).toMatch(/rank\s+callpath\s+model\s+leading\s+SMAPE\s+at largest\s+status\s+flags/);
    const init = stdout.split('\n').find((line) => /init\s+14 \+/.test(line))!;
    expect(init).toMatch(/\sexact\s+\d+\s+exact\s*$/);
    expect(stdout).not.toMatch(/beyond-nest/);
    expect(stdout).toMatch(/^status:\n {2}exact: a closed form that reproduces every measured count$/m);
    const json = JSON.parse((await cli([...args, '--json'])).stdout) as {
      models: { callpath: string; flags: string[] }[];
    };
    expect(json.models.find((m) => /init$/.test(m.callpath))!.flags).toContain('beyond-nest:size');
  });
});
