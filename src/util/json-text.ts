// JSON text in pieces, byte for byte what JSON.stringify(value, null, indent) returns, for values
// whose text is longer than a JavaScript string can be (V8: 2^29 - 24 characters): yosys's site
// table with its sampling facts is over 1 GB of JSON. The outer levels of objects and arrays are
// written here, and every value below them goes through JSON.stringify, re-indented to its depth.

/** Containers are opened here down to this depth; below it, only arrays this long still are. */
const OPEN_DEPTH = 3;
const OPEN_LENGTH = 256;

/**
 * The pieces of `JSON.stringify(value, null, indent)` (compact when `indent` is 0), for a value that
 * has a JSON text (not undefined, a function or a symbol at the top).
 */
export function* jsonPieces(value: unknown, indent = 0): Generator<string> {
  yield* pieces(toJson(value, ''), ' '.repeat(indent), '', 0);
}

function* pieces(value: unknown, indent: string, prefix: string, depth: number): Generator<string> {
  const isArray = Array.isArray(value);
  const open =
    value !== null &&
    typeof value === 'object' &&
    !isBoxed(value) &&
    (depth < OPEN_DEPTH || (isArray && (value as unknown[]).length > OPEN_LENGTH));
  if (!open) {
    const text = JSON.stringify(value, null, indent);
    yield indent && prefix ? text.replaceAll('\n', `\n${prefix}`) : text;
    return;
  }
  const inner = prefix + indent;
  const entries: Array<[string | null, unknown]> = [];
  if (isArray) {
    const list = value as unknown[];
    for (let i = 0; i < list.length; i++) {
      const item = toJson(list[i], String(i));
      entries.push([null, omitted(item) ? null : item]);
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = toJson(record[key], key);
      if (!omitted(item)) entries.push([key, item]);
    }
  }
  const [start, end] = isArray ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    yield start + end;
    return;
  }
  yield start;
  let first = true;
  for (const [key, item] of entries) {
    let head = first ? '' : ',';
    first = false;
    if (indent) head += `\n${inner}`;
    if (key !== null) head += JSON.stringify(key) + (indent ? ': ' : ':');
    yield head;
    yield* pieces(item, indent, inner, depth + 1);
  }
  yield indent ? `\n${prefix}${end}` : end;
}

/** What JSON.stringify serializes for a property: the value's toJSON(key) result, when it has one. */
function toJson(value: unknown, key: string): unknown {
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return (toJSON as (key: string) => unknown).call(value, key);
  }
  return value;
}

/** Values JSON leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function isBoxed(value: object): boolean {
  return value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt;
}
