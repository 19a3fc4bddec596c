// The functions the taint pass leaves unoptimized (src/taint/cold-functions.ts): taken by
// increasing work per instruction while their work stays within the share of the run's.
import { test, expect } from 'vitest';
import { coldFunctions } from '../../src/taint/cold-functions.js';

const instructions = new Map([
  ['setup', 1_000],
  ['helper', 1],
  ['kernel', 50],
  ['parse', 400],
]);

test('functions are taken by work per instruction until their work reaches the share', () => {
  // setup: 1 run per instruction, helper: 10, parse: 5, kernel (entered once, its loop ran): 20,000.
  const work = new Map([
    ['setup', 1_000],
    ['helper', 10],
    ['parse', 2_000],
    ['kernel', 1_000_000],
  ]);
  const total = 1_003_010;
  expect(coldFunctions(work, instructions, 3_005 / total)).toEqual(['parse', 'setup']);
  expect(coldFunctions(work, instructions, 3_015 / total)).toEqual(['helper', 'parse', 'setup']);
  expect(coldFunctions(work, instructions, 0.5)).toEqual(['helper', 'parse', 'setup']);
  expect(coldFunctions(work, instructions, 1)).toEqual(['helper', 'kernel', 'parse', 'setup']);
  expect(coldFunctions(work, instructions, 0)).toEqual([]);
});

test('a function the site table does not know is never cold', () => {
  expect(coldFunctions(new Map([['unknown', 1]]), instructions, 1)).toEqual([]);
});
