// How the fuzzer writes down values and traps: the same text for the original and every variant.

/** Renders a value the same way for both variants; NaN payloads do not survive the trip through JS anyway. */
export function show(value: unknown): string {
  if (value === undefined) return 'void';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'funcref';
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  return typeof value;
}

export function trapText(error: unknown): string {
  if (error instanceof Error) return `${error.constructor.name}: ${error.message}`;
  return `throw ${show(error)}`;
}
