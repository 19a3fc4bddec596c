// A tiny terminal screen for tests: applies what a program writes (text, \r, \n, and the escape
// sequences cli-progress and readline emit: save/restore cursor, column moves, line erases) and
// shows the lines a user would see afterwards.
export class Screen {
  private readonly lines: string[] = [''];
  private row = 0;
  private col = 0;
  private saved = { row: 0, col: 0 };

  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      const rest = text.slice(i);
      // eslint-disable-next-line no-control-regex -- ESC is what a terminal escape starts with
      const escape = /^\x1b(?:7|8|\[(\??)(\d*)(?:;(\d*))?([A-Za-z]))/.exec(rest);
      if (escape) {
        this.control(escape[0], escape[1] ?? '', escape[2] ?? '', escape[4] ?? '');
        i += escape[0].length;
        continue;
      }
      this.put(text[i]!);
      i++;
    }
  }

  /** The visible lines, trailing spaces and trailing empty lines removed. */
  text(): string[] {
    const out = this.lines.map((line) => line.replace(/\s+$/, ''));
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return out;
  }

  private control(sequence: string, privateMode: string, n: string, command: string): void {
    if (sequence === '\x1b7') this.saved = { row: this.row, col: this.col };
    else if (sequence === '\x1b8') ({ row: this.row, col: this.col } = this.saved);
    else if (privateMode)
      return; // cursor visibility, line wrapping
    else if (command === 'G') this.col = Math.max(0, Number(n || 1) - 1);
    else if (command === 'K') {
      const line = this.lines[this.row]!;
      if (n === '2') this.lines[this.row] = '';
      else if (n === '1') this.lines[this.row] = ' '.repeat(this.col) + line.slice(this.col);
      else this.lines[this.row] = line.slice(0, this.col);
    } else if (command === 'C') this.col += Number(n || 1);
    else if (command === 'D') this.col = Math.max(0, this.col - Number(n || 1));
    else throw new Error(`terminal: unhandled escape ${JSON.stringify(sequence)}`);
  }

  private put(ch: string): void {
    if (ch === '\r') this.col = 0;
    else if (ch === '\n') {
      this.row++;
      this.col = 0;
      while (this.lines.length <= this.row) this.lines.push('');
    } else {
      const line = this.lines[this.row]!.padEnd(this.col);
      this.lines[this.row] = line.slice(0, this.col) + ch + line.slice(this.col + 1);
      this.col++;
    }
  }
}
