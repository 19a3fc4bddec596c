// Blame through an indirect call (issue 25: nextpnr's "callee argument" share comes from C++
// virtual calls and std::function): native/src/blame_kernels.c's decode_indirect calls its update
// through a function pointer, so the value it passes has no static callee; the callee the sampled
// call paths entered from that call site takes it into the decoder state on decode_indirect's stack.
import { expect, test } from 'vitest';
import { join } from 'node:path';
import { blameModule } from '../../src/blame/blame.js';

const C = join(import.meta.dirname, '..', '..', 'native/wasm/debug/blame_kernels.wasm');

test('a value passed through a function pointer goes where the callee the run entered stores it', async () => {
  const point = (await blameModule(C, { invoke: 'decode_indirect', args: ['600', '20'] })).blamePoints[0]!;
  const frame = point.variables.find((v) => v.name === 'stack frame of decode_indirect');
  // Without the observed callee: 41% frame, 59% "callee argument". What stays "callee argument"
  // is the loop index passed to update and used only in an address (as with decode_into's direct call).
  expect(frame?.percent).toBeGreaterThan(70);
  const other = point.variables.find((v) => v.name === 'other');
  expect(other?.percent ?? 0).toBeLessThan(30);
}, 60_000);
