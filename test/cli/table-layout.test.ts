// Tables that fit a width: shrinkable columns give up characters (lowest order, widest first),
// call paths keep their last elements, wrapped cells add lines to their row, prose wraps at spaces.
import { expect, test } from 'vitest';
import { renderTable } from '../../src/report/table.js';
import { pathTail } from '../../src/report/names.js';
import { wrap } from '../../src/report/wrap.js';
import { jsonText, outputWidth, proseWidth } from '../../src/report/terminal.js';

const rows = [
  { path: 'main->solver->assemble->integrate', text: 'alpha beta gamma delta epsilon', n: 12345 },
  { path: 'main->io', text: 'short', n: 7 },
];

test('call paths keep their last elements', () => {
  expect(pathTail('main->solver->assemble->integrate', 25)).toBe('…->assemble->integrate');
  expect(pathTail('main->solver->assemble->integrate', 100)).toBe('main->solver->assemble->integrate');
  expect(pathTail('a > bb > ccc', 9)).toBe('… > ccc');
  expect(pathTail('main->averyveryverylongname', 10)).toBe('…ylongname');
  expect(pathTail('_start:C0 > malloc:C27', 12)).toBe('…malloc:C27');
});

test('a table fits its width by shrinking and wrapping, and stays whole when wide', () => {
  const columns = [
    { header: 'path', value: (r: (typeof rows)[0]) => r.path, shrink: pathTail, shrinkOrder: 0, min: 10 },
    { header: 'text', value: (r: (typeof rows)[0]) => r.text, shrink: 'wrap' as const, min: 12 },
    { header: 'n', value: (r: (typeof rows)[0]) => r.n },
  ];
  const fitted = renderTable(rows, columns, { width: 40 }).split('\n');
  for (const line of fitted) expect(line.length).toBeLessThanOrEqual(40);
  expect(fitted[2]).toMatch(/^…integrate {2}alpha beta gamma\s+12,345$/);
  expect(fitted.length).toBeGreaterThan(4); // the first row's text took more than one line
  expect(fitted.join('\n')).toMatch(/epsilon/);
  const wide = renderTable(rows, columns, { width: 40, wide: true });
  expect(wide).toContain('main->solver->assemble->integrate  alpha beta gamma delta epsilon');
});

test('a column cap applies without a width; prose wraps with an indent; widths come from the terminal', () => {
  const capped = renderTable(rows, [{ header: 'path', value: (r) => r.path, shrink: 'end', max: 12 }]);
  expect(capped.split('\n')[2]).toBe('main->solve…');
  expect(wrap('  one two three four', 10, '    ')).toBe('  one two\n    three\n    four');
  expect(outputWidth({ isTTY: true, columns: 132 }, {})).toBe(132);
  expect(outputWidth({ isTTY: false, columns: 132 }, {})).toBe(100);
  expect(proseWidth({ isTTY: false }, {})).toBe(Infinity);
});

test('a droppable column is left out when shrinking is not enough', () => {
  const columns = [
    { header: 'name', value: (r: (typeof rows)[0]) => r.path },
    { header: 'extra', value: (r: (typeof rows)[0]) => r.text, dropOrder: 0 },
    { header: 'n', value: (r: (typeof rows)[0]) => r.n },
  ];
  const narrow = renderTable(rows, columns, { width: 50 });
  expect(narrow.split('\n')[0]).toMatch(/^name\s+n$/);
  expect(renderTable(rows, columns, { width: 80 })).toMatch(/extra/);
});

test('COLUMNS sets the width, on a terminal or not; nonsense in it is ignored', () => {
  expect(outputWidth({ isTTY: false }, { COLUMNS: '72' })).toBe(72);
  expect(outputWidth({ isTTY: true, columns: 132 }, { COLUMNS: '80' })).toBe(80);
  expect(outputWidth({ isTTY: true, columns: 132 }, { COLUMNS: 'wide' })).toBe(132);
  expect(outputWidth({ isTTY: false }, { COLUMNS: '0' })).toBe(100);
  expect(proseWidth({ isTTY: true, columns: 132 }, { COLUMNS: '60' })).toBe(60);
});

test('call paths of every notation keep their leaf: `… > solve > kernel`, `…→solve→kernel`', () => {
  expect(pathTail('main > setup > solve > kernel', 20)).toBe('… > solve > kernel');
  expect(pathTail('main→setup→solve→kernel', 14)).toBe('…→solve→kernel');
  expect(pathTail('main→setup→solve→kernel (C12)', 20)).toBe('…→solve→kernel (C12)');
});

test('JSON is one line off a terminal and indented on one, with the same content', () => {
  const document = { schema: 'taintlens/run@1', result: [1, 2], nested: { a: 'x' } };
  const piped = jsonText(document, { isTTY: false });
  const terminal = jsonText(document, { isTTY: true });
  expect(piped).not.toContain('\n');
  expect(terminal.split('\n').length).toBeGreaterThan(3);
  expect(JSON.parse(piped)).toEqual(document);
  expect(JSON.parse(terminal)).toEqual(document);
});
