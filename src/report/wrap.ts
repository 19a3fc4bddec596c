// Prose lines for people, broken at spaces to fit the table width they accompany.

/** Breaks text at spaces so that no line is longer than `width`; continuation lines get `indent`. */
export function wrap(text: string, width: number, indent = ''): string {
  if (!Number.isFinite(width) || text.length <= width) return text;
  const lead = /^ */.exec(text)![0];
  const lines: string[] = [];
  let line = lead;
  for (const word of text.slice(lead.length).split(' ')) {
    if (line.trim() !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line.trim() === '' ? line + word : `${line} ${word}`;
    }
  }
  if (line.trim() !== '') lines.push(line);
  return lines.join('\n');
}
