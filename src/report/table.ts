// Plain-text tables for people: right-aligned numbers, left-aligned text, a rule under the header.

export type Align = 'left' | 'right';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number;
  align?: Align;
}

export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((column) => formatCell(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((line) => line[i]!.length)),
  );
  const alignOf = (i: number): Align =>
    columns[i]!.align ?? (rows.length > 0 && typeof columns[i]!.value(rows[0]!) === 'number' ? 'right' : 'left');
  const pad = (text: string, i: number) =>
    alignOf(i) === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const header = columns.map((column, i) => pad(column.header, i)).join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const body = cells.map((line) => line.map((cell, i) => pad(cell, i)).join('  ').trimEnd());
  return [header.trimEnd(), rule, ...body].join('\n');
}

function formatCell(value: string | number): string {
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value.toFixed(Math.abs(value) >= 100 ? 1 : 3);
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}
