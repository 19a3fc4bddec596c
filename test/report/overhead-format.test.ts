// How an overhead ratio is shown beside the spread of its rounds: a ratio whose rounds include one no
// slower than none is said to be within noise; one round has no spread to judge by.
import { expect, test } from 'vitest';
import { formatOverhead, formatRoundRange } from '../../src/report/html/format.js';

test('overhead ratios say what their rounds support', () => {
  const within = { mode: 'full', ratio: 1.049, roundRange: [0.981, 1.12] as [number, number], aboveNoise: false };
  const above = { mode: 'full', ratio: 1.5, roundRange: [1.4, 1.6] as [number, number], aboveNoise: true };
  const oneRound = { mode: 'full', ratio: 0.933, roundRange: null, aboveNoise: null };
  expect(formatOverhead(within)).toBe('1.049× (0.981–1.120 over rounds: within noise)');
  expect(formatOverhead(above)).toBe('1.500× (1.400–1.600 over rounds)');
  expect(formatOverhead(oneRound)).toBe('0.933×');
  expect(formatRoundRange(within)).toBe('0.981–1.120 within noise');
  expect(formatRoundRange(above)).toBe('1.400–1.600');
  expect(formatRoundRange(oneRound)).toBeNull();
  expect(formatRoundRange({ ...above, mode: 'none' })).toBeNull();
});
