// JSON with line numbers in errors: JSON.parse does the work; when it fails, a small scanner finds
// where the text stops being JSON (V8's messages do not always carry a position).
import { fileError } from '../util/errors.js';

/** Parses `text`; on a syntax error throws `file: [line N: ]not valid JSON (…)`. */
export function parseJson(text: string, file: string, where = ''): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw fileError(file, `${where}${jsonSyntaxError(text, error)}`);
  }
}

/** "line 3: not valid JSON (unexpected 'o')" for a text JSON.parse rejected. */
export function jsonSyntaxError(text: string, error?: unknown): string {
  const offset = jsonErrorOffset(text);
  const line = text.slice(0, offset).split('\n').length;
  const found = offset >= text.length ? 'unexpected end' : `unexpected ${JSON.stringify(text[offset])}`;
  const detail =
    error instanceof Error && /position \d+/.test(error.message)
      ? error.message.replace(/ in JSON at position \d+.*$/, '')
      : found;
  return `line ${line}: not valid JSON (${detail})`;
}

/** Offset of the first character where `text` stops being valid JSON (text.length if it ends early). */
export function jsonErrorOffset(text: string): number {
  let at = 0;
  const fail = (): never => {
    throw at;
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[at] !== ch) fail();
      at++;
    }
  };
  const string = () => {
    at++;
    while (at < text.length) {
      const ch = text[at]!;
      if (ch === '"') {
        at++;
        return;
      }
      if (ch === '\\') {
        at++;
        if (text[at] === 'u') {
          for (let i = 1; i <= 4; i++)
            if (!/[0-9a-fA-F]/.test(text[at + i] ?? '')) {
              at += i;
              fail();
            }
          at += 5;
        } else if (at < text.length && '"\\/bfnrt'.includes(text[at]!)) at++;
        else fail();
      } else if (ch < ' ') {
        fail();
      } else at++;
    }
    fail();
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match || match[0] === '' || match[0] === '-') fail();
    at += match![0].length;
  };
  const value = (): void => {
    space();
    const ch = text[at];
    if (ch === '{') {
      at++;
      space();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ':') fail();
        at++;
        value();
        space();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === '}') {
          at++;
          return;
        }
        fail();
      }
    } else if (ch === '[') {
      at++;
      space();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === ']') {
          at++;
          return;
        }
        fail();
      }
    } else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) number();
    else fail();
  };
  try {
    value();
    space();
    return at < text.length ? at : text.length;
  } catch (offset) {
    return typeof offset === 'number' ? Math.min(offset, text.length) : 0;
  }
}
