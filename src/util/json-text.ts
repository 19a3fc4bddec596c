// JSON text in pieces, byte for byte what JSON.stringify(value, null, indent) returns, for values
// whose text is longer than a JavaScript string can be (V8: 2^29 - 24 characters): yosys's site
// table with its sampling facts is over 1 GB of JSON. The outer levels of objects are written
// here, and the values below them go through JSON.stringify, a run of array items at a time; a
// value or run whose text is too long for one string is opened here after all. (Opening every
// item of the table's top-level arrays stringified each of their fields on its own: 7 s of yosys's
// 400 MB table, against 2 s in runs.)

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
  if (!opens(value, depth)) {
    const text = textUnlessTooLong(value, indent, prefix);
    if (text !== null) {
      yield text;
      return;
    }
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
  // Items of a run too long for one string are opened one by one up to here.
  let openedUntil = 0;
  for (let k = 0; k < entries.length;) {
    const [key, item] = entries[k]!;
    let head = first ? '' : ',';
    first = false;
    if (key === null && k >= openedUntil && !isLongArray(item)) {
      // A run of array items that are not long arrays: one JSON.stringify for up to CHUNK of them.
      const from = k;
      const run: unknown[] = [];
      while (k < entries.length && run.length < CHUNK && !isLongArray(entries[k]![1])) run.push(entries[k++]![1]);
      const text = textUnlessTooLong(run, indent, prefix);
      if (text !== null) {
        yield head + text.slice(1, indent ? -(prefix.length + 2) : -1);
        continue;
      }
      k = from;
      openedUntil = from + run.length;
    }
    k++;
    if (indent) head += `\n${inner}`;
    if (key !== null) head += JSON.stringify(key) + (indent ? ': ' : ':');
    yield head;
    yield* pieces(item, indent, inner, depth + 1);
  }
  yield indent ? `\n${prefix}${end}` : end;
}

/**
 * JSON.stringify(value, null, indent) as it reads `prefix` deep: the value is stringified inside as
 * many one-item arrays, which are cut off again (cheaper than re-indenting every line).
 */
function indentedText(value: unknown, indent: string, prefix: string): string {
  if (!indent || !prefix) return JSON.stringify(value, null, indent);
  const levels = prefix.length / indent.length;
  let wrapped: unknown = value;
  let open = 0;
  let close = 0;
  for (let level = 0; level < levels; level++) {
    wrapped = [wrapped];
    open += 2 + (level + 1) * indent.length;
    close += 2 + level * indent.length;
  }
  const text = JSON.stringify(wrapped, null, indent);
  return text.slice(open, text.length - close);
}

/** indentedText, or null when the text of this object or array is longer than a string can be. */
function textUnlessTooLong(value: unknown, indent: string, prefix: string): string | null {
  try {
    return indentedText(value, indent, prefix);
  } catch (error) {
    if (error instanceof RangeError && value !== null && typeof value === 'object' && !isBoxed(value)) return null;
    throw error;
  }
}

function isLongArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > OPEN_LENGTH;
}

/** Array items written by one JSON.stringify at most (small enough that their text fits a string). */
const CHUNK = 256;

/** Whether `pieces` opens a value itself (an object or array near the top, or a long array). */
function opens(value: unknown, depth: number): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !isBoxed(value) &&
    (depth < OPEN_DEPTH || (Array.isArray(value) && value.length > OPEN_LENGTH))
  );
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
