// Plain-text tables for people: right-aligned numbers, left-aligned text, a rule under the header.
// Tables can be fitted to a width: columns marked `shrink` give up characters (widest first) and
// their cells are shortened, so a long call path never wraps the whole table on a terminal.

export type Align = 'left' | 'right';

/**
 * How a cell too wide for its column is shortened: keep its end, its start, a custom fit, or
 * 'wrap': break it at spaces onto more lines of the row.
 */
export type Shrink = 'start' | 'end' | 'wrap' | ((text: string, width: number) => string | string[]);

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number;
  align?: Align;
  /** The column may be narrowed to fit the table's width (and to `max`). */
  shrink?: Shrink;
  /** Widest the column may be (only for shrinkable columns; ignored when wide). */
  max?: number;
  /** Narrowest a shrinkable column gets (default: its header, at least 8). */
  min?: number;
  /** Shrinkable columns of a lower order give up their width first (default 1). */
  shrinkOrder?: number;
  /** The column may be left out when the table cannot fit otherwise (lowest order first). */
  dropOrder?: number;
}

export interface TableLayout {
  /** Total line width to fit; no limit when absent. */
  width?: number;
  /** Keep every cell whole: no width limit, no column caps. */
  wide?: boolean;
}

export function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  layout: TableLayout = {},
): string {
  const cells = rows.map((row) => columns.map((column) => formatCell(column.value(row))));
  const natural = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i]!.length)));
  const widths = layout.wide ? natural : fitWidths(columns, natural, layout.width);
  if (!layout.wide && layout.width !== undefined && widths.reduce((sum, w) => sum + w + 2, -2) > layout.width) {
    const droppable = columns.filter((column) => column.dropOrder !== undefined);
    if (droppable.length > 0) {
      const first = droppable.reduce((a, b) => (b.dropOrder! < a.dropOrder! ? b : a));
      return renderTable(
        rows,
        columns.filter((column) => column !== first),
        layout,
      );
    }
  }
  const alignOf = (i: number): Align =>
    columns[i]!.align ?? (rows.length > 0 && typeof columns[i]!.value(rows[0]!) === 'number' ? 'right' : 'left');
  const pad = (text: string, i: number) =>
    alignOf(i) === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const fit = (text: string, i: number): string[] => {
    if (text.length <= widths[i]!) return [text];
    const how = columns[i]!.shrink ?? 'end';
    if (how === 'wrap') return wrapCell(text, widths[i]!);
    if (typeof how === 'function') {
      const fitted = how(text, widths[i]!);
      return (Array.isArray(fitted) ? fitted : [fitted]).flatMap((part) => wrapCell(part, widths[i]!));
    }
    return [shorten(text, widths[i]!, how)];
  };
  const line = (texts: readonly string[]) =>
    texts
      .map((text, i) => pad(text, i))
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column, i) => fit(column.header, i)[0]!));
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const body = cells.flatMap((row) => {
    const parts = row.map((cell, i) => fit(cell, i));
    const height = Math.max(...parts.map((p) => p.length));
    return Array.from({ length: height }, (_, k) => line(parts.map((p) => p[k] ?? '')));
  });
  return [header, rule, ...body].join('\n');
}

/** Column widths after caps, then narrowing the widest shrinkable column until the line fits. */
function fitWidths<Row>(
  columns: readonly Column<Row>[],
  natural: readonly number[],
  width: number | undefined,
): number[] {
  const floor = columns.map((column, i) => Math.min(natural[i]!, column.min ?? Math.max(column.header.length, 8)));
  const widths = natural.map((w, i) => {
    const column = columns[i]!;
    return column.shrink && column.max !== undefined ? Math.max(floor[i]!, Math.min(w, column.max)) : w;
  });
  if (width === undefined) return widths;
  let excess = widths.reduce((sum, w) => sum + w, 0) + 2 * (columns.length - 1) - width;
  const orderOf = (i: number) => columns[i]!.shrinkOrder ?? 1;
  while (excess > 0) {
    const open = columns.map((_, i) => i).filter((i) => columns[i]!.shrink && widths[i]! > floor[i]!);
    if (open.length === 0) break;
    const order = Math.min(...open.map(orderOf));
    const group = open.filter((i) => orderOf(i) === order);
    const widest = group.reduce((best, i) => (widths[i]! > widths[best]! ? i : best), group[0]!);
    const next = Math.max(...group.filter((i) => i !== widest).map((i) => widths[i]!), floor[widest]!);
    const step = Math.max(1, Math.min(excess, widths[widest]! - next));
    widths[widest] = widths[widest]! - step;
    excess -= step;
  }
  return widths;
}

/** Lines of at most `width` characters, broken at spaces (a longer word is cut). */
export function wrapCell(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > width) {
      lines.push(current);
      current = '';
    }
    current = current === '' ? word : `${current} ${word}`;
  }
  lines.push(current);
  return lines.map((part) => shorten(part, width, 'end'));
}

/** Shortens text to `width` characters, marking the cut with `…`. */
export function shorten(text: string, width: number, how: Shrink): string {
  if (text.length <= width) return text;
  if (typeof how === 'function') {
    const fitted = how(text, width);
    return Array.isArray(fitted) ? shorten(fitted.join(' '), width, 'end') : fitted;
  }
  if (how === 'wrap') return shorten(text, width, 'end');
  if (width <= 1) return text.slice(0, width);
  return how === 'start' ? `…${text.slice(text.length - width + 1)}` : `${text.slice(0, width - 1)}…`;
}

function formatCell(value: string | number): string {
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value.toFixed(Math.abs(value) >= 100 ? 1 : 3);
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}
